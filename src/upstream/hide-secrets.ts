import type { RequestAuth } from "./auth-options.js";

// An upstream may quote what it was sent in an error answer ("bad credentials: Bearer ..."), and what an
// answer says reaches the log and the status page. The secrets are taken out of its raw text, before it
// is parsed or cut to an excerpt (which may drop markup in a secret, join its spaces or cut it short,
// and so hide it from a search), and out of what parsing made of it (a JSON string's escapes undone).

/** Parts of a credential shorter than this are not looked for on their own (they would hide common words). */
const MIN_PART = 8;

/**
 * What the exporter sends that is secret: custom header values (of MIN_PART characters or more), the credentials of an Authorization
 * header (whole, and their words), basic auth as sent (base64), its password, and a password in the URL.
 * Longest first, so that a secret holding another is hidden whole.
 */
export function secretsOf(url: string, auth: RequestAuth | undefined): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(auth?.headers ?? {})) {
    // A custom header's short value ("1", a tenant's number) is no secret worth garbling every "1" for.
    if (name.toLowerCase() !== "authorization" && value.length < MIN_PART) continue;
    secrets.push(value);
    const space = value.indexOf(" ");
    if (space < 0) continue;
    const scheme = value.slice(0, space);
    const credentials = value.slice(space + 1);
    secrets.push(credentials, ...credentials.split(/[\s,]+/).filter((part) => part.length >= MIN_PART));
    if (scheme.toLowerCase() === "basic") {
      const decoded = Buffer.from(credentials, "base64").toString("utf8");
      secrets.push(decoded, decoded.slice(decoded.indexOf(":") + 1));
    }
  }
  const { username, password } = URL.canParse(url) ? new URL(url) : { username: "", password: "" };
  if (password) {
    const basic = `${safeDecode(username)}:${safeDecode(password)}`;
    secrets.push(password, safeDecode(password), Buffer.from(basic).toString("base64"));
  }
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

/** The text with every secret replaced by `xxxxx`. */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  let hidden = text;
  for (const secret of secrets) if (hidden.includes(secret)) hidden = hidden.replaceAll(secret, "xxxxx");
  return hidden;
}

const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};
