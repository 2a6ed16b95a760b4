import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ownMemory, transferList } from "../../src/poll/transferable.js";

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
