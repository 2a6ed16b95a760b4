import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { joinViews, tileOneBuffer } from "../../src/lib/joined-views.js";
import { ownMemory, ownMemoryTogether, transferList } from "../../src/poll/transferable.js";

describe("ownMemory", () => {
  it("copies a small Buffer out of Node's shared pool, so moving it leaves its neighbours alone", () => {
    const neighbour = Buffer.from("neighbour");
    const small = Buffer.from("promstatus_targets_dropped 0\n");
    expect(small.buffer.byteLength).toBeGreaterThan(small.byteLength); // a slice of the shared pool
    const sent = ownMemory(small);
    const { port1, port2 } = new MessageChannel();
    // Node 20 would detach the whole pool here, Node 21+ would throw DataCloneError: neither may happen.
    port1.postMessage(sent, transferList([sent]));
    const received = receiveMessageOnPort(port2)?.message as Uint8Array;
    expect(Buffer.from(received).toString()).toBe("promstatus_targets_dropped 0\n");
    expect(neighbour.toString()).toBe("neighbour");
    expect(small.toString()).toBe("promstatus_targets_dropped 0\n");
    port1.close();
  });

  it("moves a view that owns its memory without copying", () => {
    const big = Buffer.alloc(64 * 1024, 1);
    expect(ownMemory(big)).toBe(big);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(big, transferList([big]));
    expect(big.byteLength).toBe(0); // moved: detached here
    expect((receiveMessageOnPort(port2)?.message as Uint8Array | undefined)?.byteLength).toBe(64 * 1024);
    port1.close();
  });
});

describe("ownMemoryTogether", () => {
  it("moves views that are between them the whole of one buffer as they are, in one piece of memory", () => {
    const members = joinViews([Buffer.alloc(70_000, 1), Buffer.alloc(50_000, 2)]);
    const sent = ownMemoryTogether(members);
    expect(sent).toEqual(members);
    expect(sent.every((view, i) => view === members[i])).toBe(true);
    expect(transferList(sent)).toHaveLength(1);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(sent, transferList(sent));
    expect(members.map((m) => m.byteLength)).toEqual([0, 0]); // moved: detached here
    const received = receiveMessageOnPort(port2)?.message as Uint8Array[];
    // Still one buffer on the other side, so the thread there frees them as one (releaseAll).
    expect(tileOneBuffer(received)).toBe(true);
    expect(received.map((m) => [m.byteLength, m[0]])).toEqual([
      [70_000, 1],
      [50_000, 2],
    ]);
    port1.close();
  });

  it("copies other views side by side into memory of their own, leaving the memory they were in alone", () => {
    const pooled = Buffer.from("a member from the pool"); // a slice of Node's shared pool
    const apart = Buffer.alloc(64 * 1024, 3); // memory of its own, but not with the other
    const sent = ownMemoryTogether([pooled, apart]);
    expect(tileOneBuffer(sent)).toBe(true);
    expect(Buffer.from(sent[0] as Uint8Array).toString()).toBe("a member from the pool");
    expect(sent[1]?.every((byte) => byte === 3)).toBe(true);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(sent, transferList(sent));
    expect([pooled.toString(), apart.byteLength]).toEqual(["a member from the pool", 64 * 1024]);
    expect(receiveMessageOnPort(port2)?.message).toHaveLength(2);
    port1.close();
  });
});
