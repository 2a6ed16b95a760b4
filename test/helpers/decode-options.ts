import type { DecodeOptions } from "../../src/poll/decode.js";

/** What a decoder is told about a plain ungrouped source `p`, per-target series on; `changes` on top. */
export function decodeOptions(changes: Partial<DecodeOptions> = {}): DecodeOptions {
  return {
    replicaFacts: false,
    perTarget: true,
    targetLabels: [],
    limit: undefined,
    labelPrefix: 'source="p"',
    maxBytes: 256 * 2 ** 20,
    ...changes,
  };
}
