// got fetches what the WHATWG URL parser makes of a string, which is not always what the string
// seems to say: `\` ends a host, tabs and newlines vanish, `0x7f.1` is 127.0.0.1, `a@b` is host b.
// A target is taken only when the parser keeps it as written, so that what is checked is what is fetched.

/** A target as it will be fetched. */
export interface PlainUrl {
  /** Parsed: origin and path are read from here, never from the string given. */
  url: URL;
  /** The path without trailing slashes ("" for none): what endpoint paths are appended to. */
  path: string;
  /** What is fetched: the origin as the parser writes it, then `path`. */
  base: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/** The URL without the slashes it ends with (a loop: `/\/+$/` is quadratic in a run of slashes). */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}

/** Ways of writing a URL's origin that all name it exactly: as the parser writes it, and with the port written out. */
export function originForms(url: URL): string[] {
  const written = `${url.protocol}//${url.host}`;
  const withPort = `${url.protocol}//${url.hostname}:${url.port || DEFAULT_PORTS[url.protocol] || ""}`;
  return written === withPort ? [written] : [written, withPort];
}

/** The first kind of character no plain target holds: controls, space, backslash, anything past ASCII. */
function oddCharacter(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return "a control character";
    if (code === 0x20) return "a space";
    if (code === 0x5c) return "a backslash";
    // Hosts are mapped (IDNA: U+212A KELVIN SIGN is "k") and paths percent-encoded: give the xn-- or %-form.
    if (code > 0x7f) return "a character outside ASCII";
  }
  return undefined;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * The target with `http://` in front when it names no scheme (`127.0.0.1:9090`, `prom:9090/prefix`),
 * as blackbox_exporter takes one. Everything after (the checks, allowed_targets, the fetch, the
 * `source` label) works on this string, never on the one given.
 */
export function withDefaultScheme(target: string): string {
  return SCHEME.test(target) ? target : `http://${target}`;
}

/**
 * The target as an http(s) base URL fetched as written, or why it is not one. Letter case of scheme
 * and host and a default port written out are the only differences allowed between the two.
 */
export function plainUrl(target: string): PlainUrl | string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "target is not a URL";
  }
  const odd = oddCharacter(target);
  if (odd) return `target holds ${odd}`;
  if (url.protocol !== "http:" && url.protocol !== "https:") return "target must be an http or https URL";
  if (url.username || url.password) return "target must not hold a user or password";
  if (target.includes("?") || target.includes("#")) return "target must be a base URL without query or fragment";
  const path = withoutTrailingSlashes(url.pathname);
  const base = `${url.protocol}//${url.host}${path}`;
  const given = withoutTrailingSlashes(target);
  const asWritten = originForms(url).some(
    (origin) =>
      given.length === origin.length + path.length &&
      given.slice(0, origin.length).toLowerCase() === origin.toLowerCase() &&
      given.slice(origin.length) === path,
  );
  if (!asWritten) return `target is fetched as "${base}": give it in that form, not as written`;
  return { url, path, base };
}
