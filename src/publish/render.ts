import { GROUP_FAMILIES, POLL, SOURCE, SOURCE_FAMILIES } from "../catalogue/families.js";
import type { Sample } from "../convert/samples.js";
import { type Families, type FamilyLines, plainLength } from "../exposition/pack.js";
import { familyHeader, renderSamples, sourceLabelPrefix } from "../exposition/text-format.js";
import { ENDPOINTS } from "../poll/endpoints.js";
import { flavorOf, type SourceState } from "./source-state.js";

/**
 * The exposition of every source: each family's HELP and TYPE, then its lines from every source.
 * Series were rendered when their poll finished; this only strings the pieces together, and a
 * series absent from the current state is simply not there: staleness is handled by construction.
 */
// The HELP and TYPE lines never change: encoded once.
const FAMILIES = [...SOURCE_FAMILIES, ...GROUP_FAMILIES];
const HEADERS: readonly [name: string, header: Buffer][] = FAMILIES.map((f) => [f.name, Buffer.from(familyHeader(f))]);

export function assembleExposition(sources: Iterable<SourceState>, groups: Iterable<Families> = []): FamilyLines[] {
  const chunks = new Map<string, FamilyLines[]>(FAMILIES.map((f) => [f.name, []]));
  const add = (name: string, chunk: FamilyLines) => {
    if (plainLength(chunk) > 0) chunks.get(name)?.push(chunk);
  };
  for (const state of sources) {
    const { config, endpoints } = state;
    const prefix = sourceLabelPrefix(config);
    // What the source is, from the start (flavor unknown until configured or told by its answers).
    add(
      SOURCE.info.name,
      renderSamples(SOURCE.info.name, prefix, [{ labels: { kind: config.kind, flavor: flavorOf(state) }, value: 1 }]),
    );
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
      poll.get(POLL.duplicates.name)?.push({ labels: { endpoint }, value: state.duplicates });
      if (ENDPOINTS[endpoint].stream) {
        poll.get(POLL.fallbacks.name)?.push({ labels: { endpoint }, value: state.fallbacks });
      }
      for (const [name, lines] of state.families ?? []) add(name, lines);
    }
    for (const [name, samples] of poll) add(name, renderSamples(name, prefix, samples));
  }
  for (const families of groups) for (const [name, lines] of families) add(name, lines);
  // Kept as pieces (a large family's as its gzip members): concatenating would need its plain bytes.
  const parts: FamilyLines[] = [];
  for (const [name, header] of HEADERS) parts.push(header, ...(chunks.get(name) ?? []));
  return parts;
}
