// What a targets answer may list, said once for both ways of reading it: the streaming reader counts as
// it reads (targets-fast-path.ts), the reference path once the answer is parsed (decode.ts).

/**
 * A scrape pool's summary takes several KB of heap: 100k pools of one target each ran a 320 MiB thread
 * out of memory. Counted as this many targets against the budget.
 */
export const POOL_WEIGHT = 32;

/** Whether `targets` and `pools` (active, dropped, or named in droppedTargetCounts) fit in `maxTargets`. */
export const withinTargets = (targets: number, pools: number, maxTargets: number | undefined): boolean =>
  targets + POOL_WEIGHT * pools <= (maxTargets ?? Number.POSITIVE_INFINITY);

/** Why an answer past the budget is refused. */
export const tooManyTargets = (maxTargets: number | undefined) =>
  `answer lists more than ${maxTargets} active targets (a scrape pool counting as ${POOL_WEIGHT}), the most a decoder keeps with its --decoder.memory-limit`;
