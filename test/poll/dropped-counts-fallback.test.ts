import { describe, expect, it } from "vitest";
import { decodeAnswer } from "../../src/poll/decode.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// Hostile review of 8e1b947 (pools named in droppedTargetCounts weigh against the targets budget).
// Failed until the reference path weighed the answer too (decode.ts targetsFit). The budget was only the streaming reader's: one key the reader gives up
// on ("__proto__", first among the counts) sends the same answer to the reference path (poll-endpoint.ts
// whole(true), decode.ts referencePath), which weighs no pools and converts every key. Measured in the
// daemon (Node 24, dist at 683030c): a 14 MB answer of 900k keys led by "__proto__":1 took each poll of
// its source ~11 s (fetched twice) and ended the decoder thread ("decoding the answer needed more than
// --decoder.memory-limit=320MiB") on every poll; in-process the reference path took 11.7 s and 513 MiB
// of heap to serve 900,016 series.

const options = decodeOptions({ maxTargets: 200 });

const answer = (pools: number) => {
  const counts = ['"__proto__":1', ...Array.from({ length: pools }, (_, i) => `"pool-${i}":1`)];
  return Buffer.from(
    `{"status":"success","data":{"activeTargets":[{"labels":{"instance":"i"},"scrapePool":"p"}],` +
      `"droppedTargets":[],"droppedTargetCounts":{${counts.join(",")}}}}`,
  );
};

/** As poll-endpoint.ts decodes a targets answer: streamed first; if the reader gave up, whole through the reference path. */
function pollDecode(body: Buffer) {
  const decoder = new TargetsDecoder(options);
  const read = decoder.write(body);
  const refused = decoder.refusal();
  if (refused) return { ok: false as const, ...refused };
  const streamed = read ? decoder.finish() : undefined;
  if (streamed) return { ok: true as const, ...streamed };
  return decodeAnswer({ endpoint: "targets", body, encoding: undefined, options, reference: true });
}

describe("droppedTargetCounts past the targets budget, led by a key the streaming reader gives up on", () => {
  it("is refused too_large, not served through the reference path", () => {
    const result = pollDecode(answer(20_000));
    expect(result.ok ? result.series : 0, "series served past the targets budget").toBe(0);
    expect(result.ok ? undefined : result.reason).toBe("too_large");
  });
});
