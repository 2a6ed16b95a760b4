import type { GroupTable } from "../publish/groups.js";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

export interface LandingPageInfo {
  version: string;
  telemetryPath: string;
  sources: readonly { name: string; kind: string; group?: string }[];
  groups: readonly GroupTable[];
}

const isoTime = (seconds: number | undefined) =>
  seconds === undefined ? "never" : new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");

function groupTable({ name, kind, members }: GroupTable): string {
  const rows = members
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.source)}</td><td>${m.up ? "up" : "down"}</td><td>${isoTime(m.lastSuccessSeconds)}</td>` +
        `<td>${escapeHtml(m.view)}</td><td><code>${escapeHtml(m.configHashPrefix ?? "")}</code></td></tr>`,
    )
    .join("\n");
  return `<h3>${escapeHtml(name)} (${escapeHtml(kind)})</h3>
<table>
<tr><th>source</th><th>last poll</th><th>last success</th><th>view</th><th>config sha256</th></tr>
${rows}
</table>`;
}

/** The page at `/`, as every Prometheus exporter has one: what this is and where the metrics are. */
export function landingPage({ version, telemetryPath, sources, groups }: LandingPageInfo): string {
  const path = escapeHtml(telemetryPath);
  const rows = sources
    .map(
      (s) => `<li>${escapeHtml(s.name)} (${escapeHtml(s.kind)}${s.group ? `, group ${escapeHtml(s.group)}` : ""})</li>`,
    )
    .join("");
  const groupSection = groups.length === 0 ? "" : `<h2>Replica groups</h2>\n${groups.map(groupTable).join("\n")}\n`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Prometheus Status Exporter</title></head>
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
<ul>${rows}</ul>
${groupSection}</body>
</html>
`;
}
