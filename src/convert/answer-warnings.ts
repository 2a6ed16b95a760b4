import { POLL } from "../catalogue/families.js";
import type { Flavor } from "../config/flavors.js";
import type { Endpoint } from "../config/types.js";
import { excerpt } from "../upstream/excerpt.js";
import type { SampleSet } from "./samples.js";

// Thanos Query answers HTTP 200 when a store fails the call, its part simply missing, and says so in a
// top-level `warnings` array (pkg/api/api.go Respond, `warnings,omitempty`; pkg/targets/proxy.go at
// v0.42.4). The count is published; the texts go to the operator's log only (they are the upstream's
// words: never a /probe client's), each once.

/** Distinct warnings kept from one answer for the log; the rest are counted only. */
export const MAX_WARNINGS_KEPT = 10;

/** The strings of an answer's `warnings` (anything else in the list is not a warning). */
export function warningTexts(warnings: unknown): string[] {
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === "string") : [];
}

/**
 * `promstatus_answer_warnings{endpoint}`: the answer's warnings, counted. A Thanos Query source always
 * has it (0 when none, so an alert on it sees the store come back); another source only when its answer
 * had warnings, which Prometheus's targets and tsdb answers never carry.
 */
export function addWarningCount(out: SampleSet, endpoint: Endpoint, warnings: number, flavor?: Flavor): SampleSet {
  if (warnings > 0 || flavor === "thanos") out.add(POLL.warnings.name, { endpoint }, warnings);
  return out;
}

/**
 * A warning as the log says it: one excerpted line, the parts that change from one answer to the next
 * left out so that one failing store is one warning: Thanos prints the store's client as a Go struct,
 * `&{0xc000a8f400}`, a pointer that differs per connection.
 */
export function normaliseWarning(text: string): string {
  return excerpt(text.replace(/&\{0x[0-9a-fA-F]+\}/g, "&{…}").replace(/\b0x[0-9a-fA-F]{6,}\b/g, "0x…"));
}

/** An answer's warnings met one at a time: all counted, the first MAX_WARNINGS_KEPT distinct kept. */
export class AnswerWarnings {
  count = 0;
  private readonly kept = new Set<string>();

  add(text: string): void {
    this.count++;
    if (this.kept.size < MAX_WARNINGS_KEPT) this.kept.add(normaliseWarning(text));
  }

  /** The distinct warnings kept, in the answer's order. */
  get distinct(): string[] {
    return [...this.kept];
  }
}

/** The warnings of a whole answer (its `warnings` as parsed). */
export function answerWarnings(warnings: unknown): AnswerWarnings {
  const out = new AnswerWarnings();
  for (const text of warningTexts(warnings)) out.add(text);
  return out;
}
