const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

export interface LandingPageInfo {
  version: string;
  telemetryPath: string;
  sources: readonly { name: string; kind: string }[];
}

/** The page at `/`, as every Prometheus exporter has one: what this is and where the metrics are. */
export function landingPage({ version, telemetryPath, sources }: LandingPageInfo): string {
  const path = escapeHtml(telemetryPath);
  const rows = sources.map((s) => `<li>${escapeHtml(s.name)} (${escapeHtml(s.kind)})</li>`).join("");
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
</body>
</html>
`;
}
