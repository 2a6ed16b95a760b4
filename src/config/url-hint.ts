import { redactUrl } from "./redact-url.js";

// Addresses copied from a browser or the API docs: the exporter adds the API paths itself.
const API_PATH = /^(.*?)(\/api\/v[12](?:\/.*)?)$/;
const UI_PAGE = /^(.*?)(\/(?:graph|query))$/;

function split(parsed: URL): { prefix: string; api?: string; page?: string } {
  const path = parsed.pathname.replace(/\/+$/, "");
  const api = API_PATH.exec(path);
  if (api) return { prefix: api[1] ?? "", api: api[2] };
  const page = UI_PAGE.exec(path);
  if (page) return { prefix: page[1] ?? "", page: page[2] };
  return { prefix: path };
}

/**
 * The base URL a source's url probably means: without query, fragment, API path or web UI page, and
 * without a trailing slash; credentials redacted, for a message.
 */
export function probableBaseUrl(parsed: URL): string {
  const base = new URL(parsed.href);
  base.pathname = split(parsed).prefix || "/";
  base.search = "";
  base.hash = "";
  return redactUrl(base.href.replace(/\/+$/, ""));
}

/**
 * Why a source's url is probably not the base URL it should be, naming the one to use; undefined when
 * it looks like one. `url` has been checked: http(s), no query or fragment. Credentials are redacted.
 */
export function baseUrlHint(url: string): string | undefined {
  const parsed = new URL(url);
  const { api, page } = split(parsed);
  if (api === undefined && page === undefined) return undefined;
  const what = api ? `ends in the API path ${api}, which the exporter adds itself` : `ends in the web UI page ${page}`;
  return `url "${redactUrl(url)}" ${what}; use "${probableBaseUrl(parsed)}"`;
}
