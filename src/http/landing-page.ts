import type { ProbeRecord } from "../probe/prober.js";
import type { GroupTable } from "../publish/groups.js";
import type { EndpointState } from "../publish/source-state.js";
import type { SourceStatus } from "../publish/source-status.js";
import { operatorDetail } from "../upstream/poll-error.js";

// The status page at `/`: where to look first. Server-rendered, inline styles, no scripts and no
// external assets (it must work air-gapped and under a strict Content-Security-Policy).

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

export interface LandingPageInfo {
  version: string;
  telemetryPath: string;
  sources: readonly SourceStatus[];
  groups: readonly GroupTable[];
  /** The last probes, newest first. */
  probes: readonly ProbeRecord[];
}

const isoTime = (seconds: number | undefined) =>
  seconds === undefined ? "never" : new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
const duration = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;

const STYLE = `body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin-bottom:1.2em}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eee}
tr.ok td.result{color:#126b12;font-weight:bold}
tr.failing{background:#fbd9d9}
tr.failing td.result{color:#b00000;font-weight:bold}
tr.pending{color:#777}
h3 small{font-weight:normal;color:#555}
td.error{max-width:40em;overflow-wrap:anywhere}`;

/** A table cell: text (escaped), text with a class, or markup already safe. */
type Cell = string | { text: string; class: string } | { html: string };

function td(cell: Cell): string {
  if (typeof cell === "string") return `<td>${escapeHtml(cell)}</td>`;
  if ("html" in cell) return `<td>${cell.html}</td>`;
  return `<td class="${cell.class}">${escapeHtml(cell.text)}</td>`;
}
const row = (css: string, cells: Cell[]) => `<tr class="${css}">${cells.map(td).join("")}</tr>`;
const headerRow = (names: string[]) => `<tr>${names.map((n) => `<th>${n}</th>`).join("")}</tr>`;
const result = (text: string): Cell => ({ text, class: "result" });
const reason = (text: string): Cell => ({ text, class: "reason" });

function endpointRow(endpoint: string, state: EndpointState | undefined): string {
  if (state === undefined) return row("pending", [endpoint, result("not polled yet"), "", "", "", "", ""]);
  const failing = state.lastError !== undefined;
  const line = row(failing ? "failing" : "ok", [
    endpoint,
    result(failing ? "failing" : "ok"),
    reason(state.lastError?.reason ?? ""),
    duration(state.durationSeconds),
    String(state.series),
    isoTime(state.lastPollSeconds),
    isoTime(state.lastSuccessSeconds),
  ]);
  if (!failing) return line;
  return `${line}<tr class="failing"><td></td><td class="error" colspan="6">${escapeHtml(state.lastError ? operatorDetail(state.lastError) : "")}</td></tr>`;
}

function sourceTable(s: SourceStatus): string {
  const group = s.group === undefined ? "" : `, group ${escapeHtml(s.group)}`;
  return `<h3 id="source-${escapeHtml(s.name)}">${escapeHtml(s.name)} <small>${escapeHtml(s.kind)}${group}, ${escapeHtml(s.url)}</small></h3>
<table class="source" data-source="${escapeHtml(s.name)}">
${headerRow(["endpoint", "last result", "reason", "duration", "series", "last poll", "last success"])}
${s.endpoints.map((e) => endpointRow(e.endpoint, e.state)).join("\n")}
</table>`;
}

function groupTable({ name, kind, members }: GroupTable): string {
  const rows = members.map((m) =>
    row(m.up ? "ok" : "failing", [
      m.source,
      result(m.up ? "up" : "down"),
      isoTime(m.lastSuccessSeconds),
      m.view,
      { html: `<code>${escapeHtml(m.configHashPrefix ?? "")}</code>` },
    ]),
  );
  return `<h3>${escapeHtml(name)} <small>${escapeHtml(kind)}</small></h3>
<table>
${headerRow(["source", "last poll", "last success", "view", "config sha256"])}
${rows.join("\n")}
</table>`;
}

function probeTable(probes: readonly ProbeRecord[]): string {
  if (probes.length === 0)
    return "<p>No probe yet. Prometheus probes targets at <code>/probe?target=&lt;URL&gt;&amp;module=&lt;name&gt;</code>.</p>";
  const rows = probes.map((p) =>
    row(p.result === "success" ? "ok" : "failing", [
      new Date(p.atMs).toISOString(),
      p.module,
      p.target,
      result(p.result),
      p.served,
      duration(p.durationSeconds),
      reason(p.detail),
      { html: `<a href="logs?id=${p.id}">debug</a>` },
    ]),
  );
  return `<table class="probes">
${headerRow(["time", "module", "target", "result", "served", "duration", "why", "account"])}
${rows.join("\n")}
</table>`;
}

/** The page at `/`: what this is, where the metrics are, and how every source and probe is doing. */
export function landingPage({ version, telemetryPath, sources, groups, probes }: LandingPageInfo): string {
  const path = escapeHtml(telemetryPath);
  const groupSection = groups.length === 0 ? "" : `<h2>Replica groups</h2>\n${groups.map(groupTable).join("\n")}\n`;
  const sourceSection =
    sources.length === 0
      ? "<p>No scheduled source: this exporter only answers probes.</p>"
      : sources.map(sourceTable).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Prometheus Status Exporter</title>
<style>${STYLE}</style></head>
<body>
<h1>Prometheus Status Exporter</h1>
<p>Version ${escapeHtml(version)}. Polls the status APIs of Prometheus and Alertmanager servers.</p>
<ul>
<li><a href="${path}">Metrics</a></li>
<li><a href="-/healthy">Health</a></li>
<li><a href="-/ready">Readiness</a></li>
<li>Reload the config: <code>POST /-/reload</code> or SIGHUP</li>
</ul>
<h2>Sources</h2>
${sourceSection}
${groupSection}<h2>Recent probes</h2>
${probeTable(probes)}
</body>
</html>
`;
}
