import { FLAVOR_NAMES } from "../config/flavors.js";
import type { ProbeRecord } from "../probe/prober.js";
import type { GroupMemberRow, GroupTable } from "../publish/groups.js";
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
  /** The exporter's last config reload, when it was refused (the running config stays). */
  refusedReload?: { atSeconds: number; problems: number } | undefined;
  /** Whether POST /-/reload reloads (--web.enable-lifecycle); SIGHUP always does. */
  lifecycle?: boolean;
}

/** Names listed in a summary line before "and N more": the page stays short for hundreds of sources. */
export const NAMES_LISTED = 5;

/** "1 target", "2 targets", "0 targets". */
export const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
const count = (n: number) => n.toLocaleString("en-US");

const isoTime = (seconds: number | undefined) =>
  seconds === undefined ? "never" : new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
const duration = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;

const STYLE = `body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin-bottom:1.2em}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top;white-space:nowrap}
td.error,td.wrap,table.group td:nth-child(4){white-space:normal}
td.wrap{max-width:26em}
th{background:#eee}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.ok td.result{color:#126b12;font-weight:bold}
tr.failing{background:#fbd9d9}
tr.failing td.result{color:#b00000;font-weight:bold}
tr.warning{background:#fff1c7}
tr.warning td.result{color:#7a5000;font-weight:bold}
tr.pending{color:#777}
h3 small{font-weight:normal;color:#555}
td.error{max-width:40em;overflow-wrap:anywhere}
ul.summary{list-style:none;padding:.5em 1em;border:1px solid #bbb;display:inline-block;margin:0 0 1em}
ul.summary li{padding:.15em 0}
ul.summary li::before{content:"\\25CF";margin-right:.5em}
ul.summary li.ok::before{color:#1f8a1f}
ul.summary li.warning::before{color:#d19a00}
ul.summary li.failing::before{color:#c00000}
h3.differs{color:#b00000}
p.differs{color:#b00000;font-weight:bold;margin-top:-.5em}
td.odd{background:#fbd9d9;font-weight:bold}`;

/** A table cell: text (escaped), text with a class, or markup already safe (with a class or not). */
type Cell = string | { text: string; class: string } | { html: string; class?: string };

function td(cell: Cell): string {
  if (typeof cell === "string") return `<td>${escapeHtml(cell)}</td>`;
  if ("html" in cell) return cell.class ? `<td class="${cell.class}">${cell.html}</td>` : `<td>${cell.html}</td>`;
  return `<td class="${cell.class}">${escapeHtml(cell.text)}</td>`;
}
const row = (css: string, cells: Cell[]) => `<tr class="${css}">${cells.map(td).join("")}</tr>`;
const headerRow = (names: string[]) => `<tr>${names.map((n) => `<th>${n}</th>`).join("")}</tr>`;
const result = (text: string): Cell => ({ text, class: "result" });
const reason = (text: string): Cell => ({ text, class: "reason" });

function endpointRow(endpoint: string, state: EndpointState | undefined): string {
  if (state === undefined) return row("pending", [endpoint, result("not polled yet"), "", "", "", "", ""]);
  const failing = state.lastError !== undefined;
  // The server said it lacks the endpoint (older version, agent mode): an answer, but nothing in it.
  const unsupported = !failing && state.summary?.unsupported === true;
  const line = row(failing ? "failing" : unsupported ? "pending" : "ok", [
    endpoint,
    result(failing ? "failing" : unsupported ? "not supported" : "ok"),
    reason(state.lastError?.reason ?? ""),
    duration(state.durationSeconds),
    String(state.series),
    isoTime(state.lastPollSeconds),
    isoTime(state.lastSuccessSeconds),
  ]);
  if (!failing) return line;
  return `${line}<tr class="failing"><td></td><td class="error" colspan="6">${escapeHtml(state.lastError ? operatorDetail(state.lastError) : "")}</td></tr>`;
}

/** What the source is: its flavor, and how that is known ("VictoriaMetrics, detected"). */
function flavorText(s: SourceStatus): string {
  if (s.flavor === undefined || s.flavor === "unknown") return "flavor not known yet";
  const name = s.kind === "alertmanager" && s.flavor === "prometheus" ? "Alertmanager" : FLAVOR_NAMES[s.flavor];
  return `${name}, ${s.flavorConfigured ? "configured" : "detected"}`;
}

/** The flavor beside the kind in the overview, where it is not the Prometheus project's own server. */
function kindText(s: SourceStatus): string {
  const { flavor } = s;
  return flavor === undefined || flavor === "unknown" || flavor === "prometheus"
    ? s.kind
    : `${s.kind} (${FLAVOR_NAMES[flavor]})`;
}

function sourceTable(s: SourceStatus): string {
  const group = s.group === undefined ? "" : `, group ${escapeHtml(s.group)}`;
  return `<h3 id="source-${escapeHtml(s.name)}">${escapeHtml(s.name)} <small>${escapeHtml(s.kind)} (<span class="flavor">${escapeHtml(flavorText(s))}</span>)${group}, ${escapeHtml(s.url)}</small></h3>
<table class="source" data-source="${escapeHtml(s.name)}">
${headerRow(["endpoint", "last result", "reason", "duration", "series", "last poll", "last success"])}
${s.endpoints.map((e) => endpointRow(e.endpoint, e.state)).join("\n")}
</table>`;
}

/** Names, each a link to its source's tables, the first few only: "a, b and 3 more". */
function someNames(names: readonly string[]): string {
  const links = names.slice(0, NAMES_LISTED).map((n) => `<a href="#source-${escapeHtml(n)}">${escapeHtml(n)}</a>`);
  const more = names.length - links.length;
  return more > 0 ? `${links.join(", ")} and ${count(more)} more` : links.join(", ");
}

/** How a source is doing as a whole: a failing poll first, then what its answers say is wrong. */
function sourceState(s: SourceStatus): { css: "ok" | "failing" | "warning" | "pending"; text: string } {
  const failing = s.endpoints.filter((e) => e.state?.lastError !== undefined).map((e) => e.endpoint);
  if (failing.length > 0) return { css: "failing", text: `failing: ${failing.join(", ")}` };
  if (s.endpoints.some((e) => e.state === undefined)) return { css: "pending", text: "not polled yet" };
  const problems: string[] = [];
  const down = s.summary?.targets?.down ?? 0;
  if (down > 0) problems.push(`${plural(down, "target")} down`);
  if (s.summary?.configReloadSuccessful === false) problems.push("config reload failed");
  const status = s.summary?.cluster?.status;
  // "disabled": an Alertmanager run without clustering, as it may well be; only "settling" is a problem.
  if (status !== undefined && status !== "ready" && status !== "disabled") problems.push(`cluster ${status}`);
  return problems.length > 0 ? { css: "warning", text: problems.join(", ") } : { css: "ok", text: "ok" };
}

/** An Alertmanager's peers: "3 peers: a, b, c", the names it kept, then "and N more". */
function peersText(cluster: NonNullable<NonNullable<SourceStatus["summary"]>["cluster"]>): string {
  const more = cluster.peers - cluster.peerNames.length;
  const names = cluster.peerNames.join(", ") + (more > 0 ? ` and ${count(more)} more` : "");
  return names ? `${plural(cluster.peers, "peer")}: ${names}` : plural(cluster.peers, "peer");
}

/** One line per source: how it is doing and what it watches (targets, head series, cluster). */
function overviewTable(sources: readonly SourceStatus[]): string {
  const rows = sources.map((s) => {
    const state = sourceState(s);
    const t = s.summary?.targets;
    const head = s.summary?.headSeries;
    const cluster = s.summary?.cluster;
    return row(state.css, [
      { html: `<a href="#source-${escapeHtml(s.name)}">${escapeHtml(s.name)}</a>` },
      kindText(s),
      s.group ?? "",
      result(state.text),
      { text: t ? count(t.up) : "", class: "n" },
      { text: t ? count(t.down) : "", class: "n" },
      { text: t ? count(t.total) : "", class: "n" },
      { text: head === undefined ? "" : count(head), class: "n" },
      cluster ? cluster.status : "",
      { text: cluster ? peersText(cluster) : "", class: "wrap" },
    ]);
  });
  return `<table class="overview">
${headerRow(["source", "kind", "group", "state", "targets up", "down", "total", "head series", "cluster", "peers"])}
${rows.join("\n")}
</table>`;
}

/** The lines on top: sources ok and failing, targets down, groups that differ, a refused reload. */
function summaryList({ sources, groups, refusedReload }: LandingPageInfo): string {
  const items: { css: string; html: string }[] = [];
  const states = sources.map((s) => ({ name: s.name, ...sourceState(s) }));
  const failing = states.filter((s) => s.css === "failing").map((s) => s.name);
  const pending = states.filter((s) => s.css === "pending").length;
  const warning = states.filter((s) => s.css === "warning").map((s) => s.name);
  const ok = states.filter((s) => s.css === "ok").length;
  let text = `${plural(sources.length, "source")}: ${count(ok)} ok`;
  if (warning.length > 0) text += `, ${count(warning.length)} with warnings (${someNames(warning)})`;
  text += `, ${count(failing.length)} failing`;
  if (failing.length > 0) text += ` (${someNames(failing)})`;
  if (pending > 0) text += `, ${count(pending)} not polled yet`;
  const css = failing.length > 0 ? "failing" : warning.length > 0 ? "warning" : "ok";
  items.push({ css, html: text });

  const prometheuses = sources.filter((s) => s.kind === "prometheus");
  if (prometheuses.length > 0) {
    let down = 0;
    let total = 0;
    const downIn: string[] = [];
    let unknown = 0;
    for (const s of prometheuses) {
      const t = s.summary?.targets;
      if (t === undefined) unknown++;
      else {
        down += t.down;
        total += t.total;
        if (t.down > 0) downIn.push(s.name);
      }
    }
    let line = `${count(down)} of ${plural(total, "target")} down`;
    if (downIn.length > 0) line += ` (${someNames(downIn)})`;
    if (unknown > 0) line += `; the targets of ${plural(unknown, "source")} not known`;
    items.push({ css: down > 0 ? "warning" : "ok", html: line });
  }

  if (groups.length > 0) {
    const differ = groups.filter((g) => g.differences.length > 0);
    let line =
      differ.length === 0
        ? `${plural(groups.length, "replica group")}, members agreeing`
        : `${count(differ.length)} of ${plural(groups.length, "replica group")} ${differ.length === 1 ? "differs" : "differ"}`;
    const named = differ
      .slice(0, NAMES_LISTED)
      .map(
        (g) =>
          `<a href="#group-${escapeHtml(g.name)}">${escapeHtml(g.name)}</a>: ${escapeHtml(g.differences.join(", "))}`,
      );
    if (named.length > 0)
      line += ` (${named.join("; ")}${differ.length > named.length ? ` and ${count(differ.length - named.length)} more` : ""})`;
    items.push({ css: differ.length > 0 ? "failing" : "ok", html: line });
  }

  const refusedBy = sources.filter((s) => s.summary?.configReloadSuccessful === false).map((s) => s.name);
  if (refusedBy.length > 0)
    items.push({ css: "failing", html: `Prometheus config reload failed on ${someNames(refusedBy)}` });
  if (refusedReload)
    items.push({
      css: "failing",
      html: `This exporter's config reload was refused at ${isoTime(refusedReload.atSeconds)} (${plural(refusedReload.problems, "problem")}): the running config stays; the log says why`,
    });
  return `<ul class="summary">\n${items.map((i) => `<li class="${i.css}">${i.html}</li>`).join("\n")}\n</ul>`;
}

/** Group columns besides source, poll and view: each shown when a member has it (the config always). */
const GROUP_COLUMNS = [
  { header: "config sha256", differs: "config", value: (m: GroupMemberRow) => m.configHashPrefix, always: true },
  { header: "rules sha256", differs: "rules", value: (m: GroupMemberRow) => m.rulesHashPrefix, always: false },
  { header: "flags sha256", differs: "flags", value: (m: GroupMemberRow) => m.flagsHashPrefix, always: false },
  { header: "version", differs: "versions", value: (m: GroupMemberRow) => m.version, always: false },
] as const;

/** Views differ as the group's targets or cluster views do. */
const VIEW_DIFFERS = ["targets", "cluster views"];

/** The values of a column that differ from the most common one among the members that have one. */
function oddValues(values: readonly (string | undefined)[]): Set<string> {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  const most = Math.max(0, ...counts.values());
  const common = [...counts].filter(([, n]) => n === most);
  // A tie: none is the odd one out, so every value is marked.
  return new Set([...counts.keys()].filter((v) => common.length > 1 || v !== common[0]?.[0]));
}

function groupTable({ name, kind, members, differences }: GroupTable): string {
  const differs = new Set(differences);
  const columns = GROUP_COLUMNS.filter((c) => c.always || members.some((m) => c.value(m) !== undefined));
  const odd = columns.map((c) => (differs.has(c.differs) ? oddValues(members.map(c.value)) : new Set<string>()));
  const viewDiffers = VIEW_DIFFERS.some((d) => differs.has(d));
  const oddViews = viewDiffers ? oddValues(members.map((m) => (m.up ? m.view : undefined))) : new Set<string>();
  const rows = members.map((m) =>
    row(m.up ? "ok" : "failing", [
      m.source,
      result(m.up ? "up" : "down"),
      isoTime(m.lastSuccessSeconds),
      oddViews.has(m.view) ? { text: m.view, class: "odd" } : m.view,
      ...columns.map((c, i): Cell => {
        const value = c.value(m) ?? "";
        const html = `<code>${escapeHtml(value)}</code>`;
        return odd[i]?.has(value) ? { html, class: "odd" } : { html };
      }),
    ]),
  );
  const headers = ["source", "last poll", "last success", viewDiffers ? "view (differs)" : "view"];
  for (const c of columns) headers.push(differs.has(c.differs) ? `${c.header} (differs)` : c.header);
  const title = `${escapeHtml(name)} <small>${escapeHtml(kind)}</small>`;
  const differ = differences.length > 0;
  const heading = differ
    ? `<h3 class="differs">${title}</h3>
<p class="differs">Members differ: ${escapeHtml(differences.join(", "))}</p>`
    : `<h3>${title}</h3>`;
  return `${heading}
<table id="group-${escapeHtml(name)}" class="group${differ ? " differs" : ""}" data-group="${escapeHtml(name)}">
${headerRow(headers)}
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
export function landingPage(info: LandingPageInfo): string {
  const { version, telemetryPath, sources, groups, probes } = info;
  const path = escapeHtml(telemetryPath);
  const groupSection = groups.length === 0 ? "" : `<h2>Replica groups</h2>\n${groups.map(groupTable).join("\n")}\n`;
  const sourceSection =
    sources.length === 0
      ? "<p>No scheduled source: this exporter only answers probes.</p>"
      : `${overviewTable(sources)}\n<h2>Endpoints</h2>\n${sources.map(sourceTable).join("\n")}`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Prometheus Status Exporter</title>
<style>${STYLE}</style></head>
<body>
<h1>Prometheus Status Exporter</h1>
<p>Version ${escapeHtml(version)}. Polls the status APIs of Prometheus and Alertmanager servers.
<a href=".${escapeHtml(path)}">Metrics</a> · <a href="-/healthy">Health</a> · <a href="-/ready">Readiness</a> ·
reload the config: ${info.lifecycle ? "<code>POST /-/reload</code> or " : ""}SIGHUP.</p>
${summaryList(info)}
<h2>Sources</h2>
${sourceSection}
${groupSection}<h2>Recent probes</h2>
${probeTable(probes)}
</body>
</html>
`;
}
