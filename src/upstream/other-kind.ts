import type { SourceConfig } from "../config/types.js";
import { fetchBody } from "./client.js";
import { answersAs, KIND_SIGNATURES, otherKind } from "./kind-of-answer.js";

// One request, bounded in time and size: an Alertmanager's status carries its config, a few KiB to
// a few hundred; a Prometheus build info is under 1 KiB. Past the cap no hint is given.
const CHECK_TIMEOUT_MS = 5000;
const CHECK_MAX_BYTES = 1024 * 1024;

/**
 * After a 404: whether the source's URL answers as the other kind does, said as what to change
 * (`this looks like an Alertmanager ...: set kind: alertmanager?`); undefined when it does not, or
 * when that cannot be told. Uses the source's own credentials and TLS settings. Never throws.
 */
export async function otherKindHint(source: SourceConfig, signal?: AbortSignal): Promise<string | undefined> {
  const kind = otherKind(source.kind);
  const { path, called } = KIND_SIGNATURES[kind];
  const url = source.url + path;
  try {
    const { body } = await fetchBody(url, {
      timeoutMs: Math.min(source.timeoutMs, CHECK_TIMEOUT_MS),
      maxBytes: CHECK_MAX_BYTES,
      // Asked uncompressed: the body is read as it comes (fetchBody does not inflate).
      http: { ...source.http, compression: "none" },
      ...(signal ? { signal } : {}),
    });
    if (!answersAs(kind, body)) return undefined;
    return `this looks like ${called} (GET ${new URL(url).pathname} answers as one): set kind: ${kind}?`;
  } catch {
    return undefined;
  }
}
