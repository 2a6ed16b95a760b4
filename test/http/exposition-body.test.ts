import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { sendBuffers, WRITE_GROUP_BYTES } from "../../src/http/exposition-body.js";

/** A response whose writes are taken only when the test says so: what was handed to it, and when. */
function heldResponse() {
  const pending: (() => void)[] = [];
  let handed = 0;
  let ended = false;
  const res = new Writable({
    highWaterMark: 64 * 2 ** 20,
    writev(chunks, callback) {
      for (const { chunk } of chunks) handed += (chunk as Buffer).length;
      pending.push(() => callback());
    },
    final(callback) {
      ended = true;
      callback();
    },
  });
  const takeAll = async () => {
    while (pending.length > 0) {
      for (const take of pending.splice(0)) take();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { res: res as unknown as ServerResponse, handed: () => handed, ended: () => ended, takeAll, pending };
}

const piece = (bytes: number) => Buffer.alloc(bytes, 0x61);

describe("sendBuffers", () => {
  it("writes a large answer a group of about a MiB at a time, each once the one before was taken", async () => {
    const { res, handed, ended, pending } = heldResponse();
    const buffers = Array.from({ length: 10 }, () => piece(300 * 1024)); // ~2.9 MiB
    sendBuffers(res, buffers);
    await new Promise((resolve) => setImmediate(resolve));
    // The first group only (four pieces reach a MiB), and nothing more while it is not taken.
    expect(handed()).toBe(4 * 300 * 1024);
    expect(ended()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handed()).toBe(4 * 300 * 1024);
    // Taken: the next group follows, and so on to the end.
    for (const take of pending.splice(0)) take();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(handed()).toBe(8 * 300 * 1024);
    for (const take of pending.splice(0)) take();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(handed()).toBe(10 * 300 * 1024);
    for (const take of pending.splice(0)) take();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended()).toBe(true);
  });

  it("writes an answer under a MiB in one go, and ends an empty one (HEAD)", async () => {
    const small = heldResponse();
    sendBuffers(small.res, [piece(1000), piece(WRITE_GROUP_BYTES - 2000)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(small.handed()).toBe(WRITE_GROUP_BYTES - 1000);
    await small.takeAll();
    expect(small.ended()).toBe(true);

    const head = heldResponse();
    sendBuffers(head.res, []);
    await head.takeAll();
    expect(head.handed()).toBe(0);
    expect(head.ended()).toBe(true);
  });

  it("writes nothing more once the client went away", async () => {
    const { res, handed, pending } = heldResponse();
    sendBuffers(
      res,
      Array.from({ length: 8 }, () => piece(512 * 1024)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(handed()).toBe(WRITE_GROUP_BYTES);
    (res as unknown as Writable).destroy();
    for (const take of pending.splice(0)) take();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handed()).toBe(WRITE_GROUP_BYTES);
  });
});
