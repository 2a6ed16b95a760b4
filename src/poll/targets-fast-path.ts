import { prometheusFacts } from "../convert/replica-facts.js";
import { TargetSummariser } from "../convert/targets.js";
import { renderTargets } from "../publish/target-lines.js";
import type { ActiveTarget } from "../upstream/payloads.js";
import { labelNamesRead, scanTargetsAnswer } from "../upstream/targets-scanner.js";
import type { DecodeOptions } from "./decode.js";
import type { FastDecoded } from "./endpoints.js";

/**
 * A targets answer from bytes to rendered lines in one pass: each target goes from the scanner to the
 * summary as it is read, so the answer never exists as objects (a 100k-target answer as JSON.parse
 * builds it: ~200 MB, which the garbage collector then copies). Undefined when the scanner gives up.
 */
export function decodeTargetsFast(bytes: Buffer, options: DecodeOptions): FastDecoded | undefined {
  const summariser = new TargetSummariser({ perTarget: options.perTarget, extraLabels: options.targetLabels });
  // A grouped source's identities are computed per target, not per merged series: those targets are kept.
  const kept: ActiveTarget[] | undefined = options.replicaFacts ? [] : undefined;
  const scanned = scanTargetsAnswer(bytes, labelNamesRead(options.targetLabels), (target) => {
    summariser.add(target);
    kept?.push(target);
  });
  if (scanned === undefined) return undefined;
  const { families, series } = renderTargets(summariser.finish(scanned.data), options.labelPrefix);
  if (kept === undefined) return { families, series };
  const payload = { ...scanned, data: { ...scanned.data, activeTargets: kept } };
  return { families, series, facts: prometheusFacts(payload, options.targetLabels) };
}
