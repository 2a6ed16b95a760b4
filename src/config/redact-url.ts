/** The URL with any password replaced, for logs and pages (as Prometheus shows `<secret>`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "xxxxx";
    return parsed.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
  } catch {
    return redactUnparsedUrl(url);
  }
}

/**
 * Text that failed to parse as a URL, with its credentials hidden. Without a parse the end of the
 * authority is unknown (a base64 password may hold `/`, `+`, `=` or `@`), so everything between the
 * scheme and the last `@` counts as credentials; a user name is kept only when it is plainly one.
 */
export function redactUnparsedUrl(text: string): string {
  // Without a scheme (`user:password@host`), what comes before the last `@` is taken as credentials too.
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?([\s\S]*)@/.exec(text);
  if (!match) return text;
  const [whole, scheme = "", userinfo] = match as unknown as [string, string | undefined, string];
  const colon = userinfo.indexOf(":");
  const user = colon > 0 && !/[/@?#\s]/.test(userinfo.slice(0, colon)) ? `${userinfo.slice(0, colon)}:` : "";
  return `${scheme}${user}xxxxx@${text.slice(whole.length)}`;
}
