// Replica groups: what comparing two members costs the event loop, and what keeping a member's target
// identities costs the decoder, against a bare JSON.parse of the same answer (the baseline). Prints one
// JSON line. Usage: node --expose-gc --import tsx scripts/bench/groups.ts
import { prometheusFacts } from "../../src/convert/replica-facts.js";
import { compareGroup } from "../../src/convert/replica-group.js";
import { renderSampleSet } from "../../src/exposition/text-format.js";
import { type TargetsResponse, targetsResponse } from "../../src/upstream/payloads.js";
import { targetsAnswer } from "./generate.js";

export interface GroupsRow {
  targets: number;
  jsonParseMs: number;
  factsMs: number;
  /** The worst of five comparisons of two members (one lacks a target; the first is cold): the stall. */
  compareMaxMs: number;
  compareMedianMs: number;
  factsBytes: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

function time<T>(run: () => T): [T, number] {
  const start = performance.now();
  const value = run();
  return [value, performance.now() - start];
}

const rows: GroupsRow[] = [];
for (const targets of [10_000, 100_000]) {
  const text = targetsAnswer(targets);
  const [, jsonParseMs] = time(() => JSON.parse(text));
  let answer: TargetsResponse | undefined = targetsResponse.parse(JSON.parse(text));
  const [a, factsMs] = time(() => prometheusFacts(answer as TargetsResponse, []));
  answer.data.activeTargets.pop();
  const b = prometheusFacts(answer, []);
  // The event loop of the daemon never holds a parsed answer (the decoder does): drop it, so the
  // comparison is not charged for collecting it.
  answer = undefined;
  (globalThis as { gc?: () => void }).gc?.();
  let compareMaxMs = 0;
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [, ms] = time(() =>
      renderSampleSet(
        compareGroup("prometheus", [
          { source: "a", up: true, facts: a },
          { source: "b", up: true, facts: b },
        ]),
        'group="g"',
      ),
    );
    compareMaxMs = Math.max(compareMaxMs, ms);
    runs.push(ms);
  }
  const factsBytes = a.targets.byteLength + a.health.byteLength;
  rows.push({
    targets,
    jsonParseMs: round(jsonParseMs),
    factsMs: round(factsMs),
    compareMaxMs: round(compareMaxMs),
    compareMedianMs: round(runs.sort((x, y) => x - y)[2] as number),
    factsBytes,
  });
}
process.stdout.write(`${JSON.stringify(rows)}\n`);
