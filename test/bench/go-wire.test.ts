import { describe, expect, it } from "vitest";
import { goWrites } from "../../scripts/bench/go-wire.js";

// The bench upstream's socket writes, as Go's net/http makes them (go-wire.ts cites server.go).

const DATE = new Date("2026-11-28T12:02:20Z");
const json = { "Content-Type": "application/json" };
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

/** The chunks' sizes and their bytes joined, from a chunked body. */
function chunks(body: Buffer): { sizes: number[]; joined: Buffer } {
  const sizes: number[] = [];
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.subarray(at, line).toString("latin1"), 16);
    if (size === 0) {
      expect(body.subarray(line).toString("latin1")).toBe("\r\n\r\n");
      return { sizes, joined: Buffer.concat(parts) };
    }
    sizes.push(size);
    parts.push(body.subarray(line + 2, line + 2 + size));
    expect(body.subarray(line + 2 + size, line + 4 + size).toString("latin1")).toBe("\r\n");
    at = line + 4 + size;
  }
}

function split(writes: Buffer[]): { head: string; body: Buffer } {
  const all = Buffer.concat(writes);
  const end = all.indexOf("\r\n\r\n") + 4;
  return { head: all.subarray(0, end).toString("latin1"), body: all.subarray(end) };
}

describe("goWrites", () => {
  it("writes a gzip answer as 2048-byte chunks leaving 4096 bytes a write, as Prometheus 2.42 was read", () => {
    const body = bytes(100_000);
    const writes = goWrites(
      { status: "200 OK", headers: { ...json, "Content-Encoding": "gzip" }, body, gzip: true },
      DATE,
    );
    expect(writes.slice(0, -1).map((w) => w.length)).toEqual(writes.slice(0, -1).map(() => 4096));
    expect(writes.at(-1)?.length).toBeLessThanOrEqual(4096);
    const { head, body: wire } = split(writes);
    expect(head).toBe(
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: application/json\r\n" +
        "Date: Sat, 28 Nov 2026 12:02:20 GMT\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    const { sizes, joined } = chunks(wire);
    expect(sizes.slice(0, -1).every((n) => n === 2048)).toBe(true);
    expect(sizes.length).toBe(Math.ceil(100_000 / 2048));
    expect(joined.equals(body)).toBe(true);
  });

  it("writes a large plain answer as one chunk: the buffer filled and flushed, then the rest at once", () => {
    const body = bytes(1_000_000);
    const writes = goWrites({ status: "200 OK", headers: json, body, gzip: false }, DATE);
    expect(writes.map((w) => w.length)).toEqual([4096, expect.any(Number), 7]);
    expect(writes[1]?.length).toBeGreaterThan(990_000);
    const { sizes, joined } = chunks(split(writes).body);
    expect(sizes).toEqual([1_000_000]);
    expect(joined.equals(body)).toBe(true);
  });

  it("writes an answer of at most 2048 bytes in one write, with a Content-Length", () => {
    const body = bytes(1161);
    const writes = goWrites({ status: "200 OK", headers: json, body, gzip: false }, DATE);
    expect(writes).toHaveLength(1);
    const { head, body: wire } = split(writes);
    expect(head).toBe(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Sat, 28 Nov 2026 12:02:20 GMT\r\nContent-Length: 1161\r\n\r\n",
    );
    expect(wire.equals(body)).toBe(true);
  });
});
