import { originForms, type PlainUrl } from "./plain-url.js";

// allowed_targets patterns are anchored regular expressions matched against the URL as it will be
// fetched, never the string a caller gave. The origin is judged alone, so nothing in a path can pass
// for a host: `https?://.*\.internal\.example:9090` does not take `http://evil.com/.internal.example:9090`.

/** Whether a pattern takes the origin alone, in one of the ways to write it. */
export function originAllowed(patterns: readonly RegExp[], url: URL): boolean {
  return patterns.some((re) => originForms(url).some((origin) => re.test(origin)));
}

/**
 * Whether one pattern takes the target: its origin alone and, when it has a path, the origin with
 * the path (so a pattern allowing a path names it as optional: `https://prom:9090(/prometheus)?`).
 */
export function targetAllowed(patterns: readonly RegExp[], { url, path }: Pick<PlainUrl, "url" | "path">): boolean {
  return patterns.some((re) =>
    originForms(url).some((origin) => re.test(origin) && (path === "" || re.test(origin + path))),
  );
}

/** Whether a pattern takes the target only with its path: it names the path but not as optional. */
export function onlyWithPath(patterns: readonly RegExp[], { url, path }: Pick<PlainUrl, "url" | "path">): boolean {
  return path !== "" && patterns.some((re) => originForms(url).some((origin) => re.test(origin + path)));
}
