import type { IncomingMessage, ServerResponse } from "node:http";
import { PROBE_EXPOSITION_BYTES } from "../probe/exposition-budget.js";
import { onceEnded } from "./once-ended.js";

// A /probe answer is built whole (up to PROBE_EXPOSITION_BYTES) and held until its client has read it:
// callers that never read, each asking for a large answer, once held ~55 MB apiece without end (1.8 GB
// with 30 of them). The bytes of the answers being written at once are bounded; one more is answered
// 503 at once, as a probe over --probe.max-concurrent is, and the stall timeout ends those not read.

/** Bytes of /probe answers being written at once: four of the largest a probe may give. */
export const PROBE_ANSWER_BYTES_IN_FLIGHT = 4 * PROBE_EXPOSITION_BYTES;

/** Bytes of answers being written, and a place for one more when they fit under `max`. */
export class AnswerBytes {
  private held = 0;

  constructor(private readonly max: number) {}

  /** Takes `bytes` until the response closes (written to the end, or its client gone); false when they do not fit. */
  take(req: IncomingMessage, res: ServerResponse, bytes: number): boolean {
    // A single answer larger than the budget still goes out alone, so the budget never refuses every answer.
    if (this.held > 0 && this.held + bytes > this.max) return false;
    this.held += bytes;
    onceEnded(req, res, () => {
      this.held -= bytes;
    });
    return true;
  }

  get bytes(): number {
    return this.held;
  }
}
