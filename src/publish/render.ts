import { POLL, SOURCE_FAMILIES } from "../convert/families.js";
import type { Sample } from "../convert/samples.js";
import type { SourceState } from "./source-state.js";
import { familyHeader, labelPrefix, renderSamples } from "./text-format.js";

/**
 * The exposition of every source: each family's HELP and TYPE, then its lines from every source.
 * Series were rendered when their poll finished; this only strings the pieces together, and a
 * series absent from the current state is simply not there: staleness is handled by construction.
 */
export function assembleExposition(sources: Iterable<SourceState>): Uint8Array[] {
  const chunks = new Map<string, Uint8Array[]>(SOURCE_FAMILIES.map((f) => [f.name, []]));
  const add = (name: string, chunk: Uint8Array | string) => {
    if (chunk.length > 0) chunks.get(name)?.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };
  for (const { config, endpoints } of sources) {
    const prefix = labelPrefix({ source: config.name, ...config.labels });
    const poll = new Map<string, Sample[]>(Object.values(POLL).map((f) => [f.name, []]));
    for (const [endpoint, state] of endpoints) {
      poll.get(POLL.up.name)?.push({ labels: { endpoint }, value: state.up });
      poll.get(POLL.duration.name)?.push({ labels: { endpoint }, value: state.durationSeconds });
      if (state.lastSuccessSeconds !== undefined) {
        poll.get(POLL.lastSuccess.name)?.push({ labels: { endpoint }, value: state.lastSuccessSeconds });
      }
      for (const [reason, n] of state.failures) {
        poll.get(POLL.failures.name)?.push({ labels: { endpoint, reason }, value: n });
      }
      for (const [name, lines] of state.families ?? []) add(name, lines);
    }
    for (const [name, samples] of poll) add(name, renderSamples(name, prefix, samples));
  }
  // Kept as pieces: concatenating would copy every byte again (43 MB at 100k targets) on the event loop.
  const parts: Uint8Array[] = [];
  for (const def of SOURCE_FAMILIES) parts.push(Buffer.from(familyHeader(def)), ...(chunks.get(def.name) ?? []));
  return parts;
}
