/** The URL with any password replaced, for logs and pages (as Prometheus shows `<secret>`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "xxxxx";
    return parsed.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
  } catch {
    return "(invalid URL)";
  }
}
