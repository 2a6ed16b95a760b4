import type { Logger } from "pino";
import type { Endpoint } from "../config/types.js";

// The warnings an upstream put in its HTTP 200 answers (Thanos Query: a store that failed the call), told
// to the operator's log once per source, not on every poll. They are the upstream's words: logged here
// only, for configured sources, never in a notice or anything a /probe client sees.

/** Distinct warnings remembered per source: a server that varies its warnings cannot grow memory. */
export const MAX_WARNINGS_REMEMBERED = 100;

/** Characters of a warning logged, at most (the decoders excerpt shorter already: this is the last bound). */
export const MAX_WARNING_LOGGED = 500;

/** The warning as logged and remembered: at most MAX_WARNING_LOGGED characters, a longer one cut with `…`. */
export function boundedWarning(text: string): string {
  if (text.length <= MAX_WARNING_LOGGED) return text;
  const cut = text.slice(0, MAX_WARNING_LOGGED - 1);
  // A cut between the halves of a surrogate pair would leave half a character.
  const last = cut.charCodeAt(cut.length - 1);
  return `${last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut}…`;
}

/**
 * One source's warnings already logged, kept for as long as its job runs (a reload that changes the
 * source starts a new job, and all is said again). A warning seen again moves to the newest end, so
 * the one forgotten when the memory is full is the one not seen for longest: a store failing on
 * every poll is not logged again because other warnings came and went.
 */
export class AnswerWarningsLog {
  private readonly said = new Set<string>();

  constructor(
    private readonly source: string,
    private readonly log: Logger,
  ) {}

  /** How many distinct warnings are remembered. */
  get remembered(): number {
    return this.said.size;
  }

  /** Logs each of an answer's warnings not logged before for this source, at warn level. */
  take(endpoint: Endpoint, warnings: readonly string[] | undefined): void {
    for (const text of warnings ?? []) {
      const warning = boundedWarning(text);
      if (this.said.delete(warning)) {
        this.said.add(warning);
        continue;
      }
      this.said.add(warning);
      if (this.said.size > MAX_WARNINGS_REMEMBERED) {
        const oldest = this.said.values().next().value;
        if (oldest !== undefined) this.said.delete(oldest);
      }
      this.log.warn({ source: this.source, endpoint, warning }, "the upstream's answer carried a warning");
    }
  }
}
