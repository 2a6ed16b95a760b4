import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../src/upstream/targets/answer-reader.ts", import.meta.url));

// Memory outside V8's heap (Buffers) is not bounded by a decoder thread's heap limit: what the reader
// keeps from one target to the next must not grow with what an answer chooses to write.
describe("targets reader: memory kept between targets", () => {
  it("keeps no copy of long label keys (a hostile answer's 32 keys of 256 KiB each)", () => {
    const script = `
      const { TargetsAnswerReader } = await import(${JSON.stringify(MODULE)});
      const keys = Array.from({ length: 32 }, (_, i) => "k" + i + "_" + "x".repeat(256 * 1024));
      const labels = "{" + keys.map((k) => JSON.stringify(k) + ':"v"').join(",") + ',"job":"j"}';
      const answer = Buffer.from('{"status":"success","data":{"activeTargets":[{"labels":' + labels + '},{"labels":{"job":"a"}}]}}');
      gc(); gc();
      const before = process.memoryUsage().arrayBuffers;
      let targets = 0;
      const reader = new TargetsAnswerReader(["job"], () => targets++);
      for (let at = 0; at < answer.length; at += 65536) reader.write(answer.subarray(at, at + 65536));
      gc(); gc();
      const held = process.memoryUsage().arrayBuffers - before;
      console.log(JSON.stringify({ targets, gaveUp: reader.gaveUp, held, kept: reader.end() !== undefined }));`;
    const out = execFileSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
      },
    );
    const { targets, gaveUp, held, kept } = JSON.parse(out.trim()) as Record<string, number | boolean>;
    // Read on the fast path (not given up), and after it the reader holds well under one key's size.
    expect({ targets, gaveUp, kept }).toEqual({ targets: 2, gaveUp: false, kept: true });
    expect(held).toBeLessThan(1024 * 1024);
  });
});
