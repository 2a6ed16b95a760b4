import type { ProbeRecord } from "../probe/prober.js";
import type { GroupTable } from "../publish/groups.js";
import type { EndpointState } from "../publish/source-state.js";
import type { SourceStatus } from "../publish/source-status.js";

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

function endpointRow(endpoint: string, state: EndpointState | undefined): string {
  if (state === undefined) {
    return `<tr class="pending"><td>${endpoint}</td><td class="result">not polled yet</td><td></td><td></td><td></td><td></td><td></td></tr>`;
  }
  const failing = state.lastError !== undefined;
  const cells = [
    endpoint,
    failing ? "failing" : "ok",
    state.lastError?.reason ?? "",
    duration(state.durationSeconds),
    String(state.series),
    isoTime(state.lastPollSeconds),
    isoTime(state.lastSuccessSeconds),
  ].map(escapeHtml);
  const error = failing
    ? `<tr class="failing"><td></td><td class="error" colspan="6">${escapeHtml(state.lastError?.message ?? "")}</td></tr>`
    : "";
  return `<tr class="${failing ? "failing" : "ok"}"><td>${cells[0]}</td><td class="result">${cells[1]}</td><td class="reason">${cells[2]}</td><td>${cells[3]}</td><td>${cells[4]}</td><td>${cells[5]}</td><td>${cells[6]}</td></tr>${error}`;
}

function sourceTable(s: SourceStatus): string {
  const group = s.group === undefined ? "" : `, group ${escapeHtml(s.group)}`;
  return `<h3 id="source-${escapeHtml(s.name)}">${escapeHtml(s.name)} <small>${escapeHtml(s.kind)}${group}, ${escapeHtml(s.url)}</small></h3>
<table class="source" data-source="${escapeHtml(s.name)}">
<tr><th>endpoint</th><th>last result</th><th>reason</th><th>duration</th><th>series</th><th>last poll</th><th>last success</th></tr>
${s.endpoints.map((e) => endpointRow(e.endpoint, e.state)).join("\n")}
</table>`;
}

function groupTable({ name, kind, members }: GroupTable): string {
  const rows = members
    .map(
      (m) =>
        `<tr class="${m.up ? "ok" : "failing"}"><td>${escapeHtml(m.source)}</td><td class="result">${m.up ? "up" : "down"}</td><td>${isoTime(m.lastSuccessSeconds)}</td>` +
        `<td>${escapeHtml(m.view)}</td><td><code>${escapeHtml(m.configHashPrefix ?? "")}</code></td></tr>`,
    )
    .join("\n");
  return `<h3>${escapeHtml(name)} <small>${escapeHtml(kind)}</small></h3>
<table>
<tr><th>source</th><th>last poll</th><th>last success</th><th>view</th><th>config sha256</th></tr>
${rows}
</table>`;
}

function probeTable(probes: readonly ProbeRecord[]): string {
  if (probes.length === 0)
    return "<p>No probe yet. Prometheus probes targets at <code>/probe?target=&lt;URL&gt;&amp;module=&lt;name&gt;</code>.</p>";
  const rows = probes
    .map((p) => {
      const css = p.result === "success" ? "ok" : "failing";
      const cells = [
        new Date(p.atMs).toISOString(),
        p.module,
        p.target,
        p.result,
        p.served,
        duration(p.durationSeconds),
        p.detail,
      ].map(escapeHtml);
      return `<tr class="${css}"><td>${cells[0]}</td><td>${cells[1]}</td><td>${cells[2]}</td><td class="result">${cells[3]}</td><td>${cells[4]}</td><td>${cells[5]}</td><td class="reason">${cells[6]}</td><td><a href="logs?id=${p.id}">debug</a></td></tr>`;
    })
    .join("\n");
  return `<table class="probes">
<tr><th>time</th><th>module</th><th>target</th><th>result</th><th>served</th><th>duration</th><th>why</th><th>account</th></tr>
${rows}
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
