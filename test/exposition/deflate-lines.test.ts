import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { constants, crc32, deflateRawSync, gunzipSync, inflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deflateLinesSync } from "../../src/exposition/deflate-lines.js";
import { FINAL_BLOCK, GZIP_HEADER, gzipTrailer } from "../../src/exposition/gzip-stream.js";

/** The bytes a piece's deflate data gives back, ended as the exposition ends the last one. */
const inflated = (data: Uint8Array) => inflateRawSync(Buffer.concat([data, FINAL_BLOCK]));

/** Lines as the line writer writes a per-target family: labels much like the line before's, a value. */
function familyLines(series: number, value: (i: number) => string): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < series; i++) {
    const a = (i * 7919) % 251;
    const b = (i * 104729) % 253;
    const pool = `app-${Math.floor(i / 5000)}`;
    lines.push(
      `promstatus_target_last_scrape_timestamp_seconds{source="s",scrape_pool="${pool}",job="${pool}",instance="10.0.${a}.${b}:9${i % 1000}"} ${value(i)}\n`,
    );
  }
  return Buffer.from(lines.join(""));
}

const timestamp = (i: number) => `${1795237200 + ((i * 37) % 60)}.${String((i * 131) % 1000).padStart(3, "0")}`;

describe("deflateLinesSync", () => {
  it("gives deflate data that inflates to the lines, and joins other pieces' into one gzip member", () => {
    const lines = familyLines(20_000, timestamp);
    const pieces = [lines.subarray(0, 700_000), lines.subarray(700_000, 1_500_000), lines.subarray(1_500_000)];
    const members = pieces.map((piece) => deflateLinesSync(piece));
    for (const [k, member] of members.entries()) expect(inflated(member).equals(pieces[k] as Buffer)).toBe(true);
    const gzip = Buffer.concat([GZIP_HEADER, ...members, FINAL_BLOCK, gzipTrailer(crc32(lines), lines.length)]);
    expect(gunzipSync(gzip).equals(lines)).toBe(true);
  });

  it("compresses a family's lines no worse than zlib's level 1 (its matches are the lines before's)", () => {
    for (const value of [timestamp, (i: number) => `0.00${(i * 7919) % 100000}`, () => "15"]) {
      const lines = familyLines(7_000, value);
      const zlib = deflateRawSync(lines, { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH });
      expect(deflateLinesSync(lines).length).toBeLessThanOrEqual(zlib.length * 1.02);
    }
  });

  it("gives back any bytes it is given: lines alike and unalike, long ones, none at all", () => {
    const alphabet = fc.constantFrom(...'ab{}=",.0123456789 \n');
    const line = fc.oneof(
      fc.string({ unit: alphabet, maxLength: 80 }),
      fc.string({ unit: alphabet, minLength: 250, maxLength: 600 }),
    );
    const text = fc.array(line, { maxLength: 200 }).map((lines) => Buffer.from(lines.join("\n")));
    const bytes = fc.uint8Array({ maxLength: 5000 }).map((b) => Buffer.from(b));
    fc.assert(
      fc.property(fc.oneof(text, bytes), (input) => {
        expect(inflated(deflateLinesSync(input)).equals(input)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("reads nothing past its input, whatever the input before left in the module's memory", () => {
    const before = Buffer.from("aaaaaaaa\n".repeat(1000));
    for (const input of ["\naa", "a\naa", "aa\naaa", "\n\n\na", "aaaaaaaa\naaaaa"]) {
      deflateLinesSync(before); // what follows each input in memory then matches it
      const bytes = Buffer.from(input);
      expect(inflated(deflateLinesSync(bytes)).equals(bytes)).toBe(true);
    }
  });

  it("matches only within deflate's 32 KiB window, and runs of equal lines longer than one match", () => {
    const long = `${"x".repeat(40_000)}\n`; // the line before is further than a distance can reach
    const equal = "the same line\n".repeat(5000); // matches of 258 bytes, one after another
    const empty = "\n".repeat(3000);
    for (const input of [long.repeat(3), equal, empty, `${long}${equal}${long}`, "", "a", "ab\nab\nab"]) {
      const bytes = Buffer.from(input);
      expect(inflated(deflateLinesSync(bytes)).equals(bytes)).toBe(true);
    }
  });

  it("keeps its codes within deflate's 15 bits where the counts would make them longer, and fits its worst output", () => {
    // Counts growing as Fibonacci's numbers, in one line (no line before to match): a Huffman code for
    // them would be 25 bits long at its longest.
    const runs: Buffer[] = [];
    for (let k = 0, a = 1, b = 1; k < 26; k++, [a, b] = [b, a + b]) runs.push(Buffer.alloc(a, 0x41 + k));
    const skewed = Buffer.concat(runs);
    expect(inflated(deflateLinesSync(skewed)).equals(skewed)).toBe(true);
    // The most the module takes, of bytes that do not compress.
    const noise = Buffer.from(Array.from({ length: 2 ** 20 }, (_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 0xff));
    const data = deflateLinesSync(noise);
    expect(inflated(data).equals(noise)).toBe(true);
    expect(data.length).toBeLessThan(noise.length * 1.01);
  });

  it("leaves more bytes than the module takes to zlib, and so does a runtime without WebAssembly", () => {
    const large = familyLines(8_000, timestamp);
    expect(large.length).toBeGreaterThan(2 ** 20);
    expect(inflated(deflateLinesSync(large)).equals(large)).toBe(true);
    const module = fileURLToPath(new URL("../../src/exposition/deflate-lines.ts", import.meta.url));
    const script = `
      const { deflateLinesSync } = await import(${JSON.stringify(module)});
      const { constants, deflateRawSync } = await import("node:zlib");
      const lines = Buffer.from("a{b=\\"1\\"} 1\\n".repeat(1000));
      const zlib = deflateRawSync(lines, { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH });
      console.log(JSON.stringify({ wasm: typeof WebAssembly, zlib: deflateLinesSync(lines).equals(zlib) }));`;
    const run = spawnSync(process.execPath, ["--jitless", "--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ wasm: "undefined", zlib: true });
  }, 60_000);
});
