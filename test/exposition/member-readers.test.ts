import { describe, expect, it } from "vitest";
import { packedMembers, readMembers, retireMembers } from "../../src/exposition/member-readers.js";
import { packLines } from "../../src/exposition/pack.js";
import { plainChunks } from "../../src/exposition/unpack.js";
import { ownMemoryTogether } from "../../src/poll/transferable.js";
import { waitFor } from "../harness/processes.js";

// Freed means detached where the runtime can (Node.js 21 and newer); elsewhere the collector frees it.
const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
const freed = (members: readonly Uint8Array[]) => members.every((m) => (m.byteLength === 0) === canDetach);
const whole = (members: readonly Uint8Array[]) => members.every((m) => m.byteLength > 0);

/** A family's lines packed into `n` members of their own, as a decoder thread hands them over. */
function family(n: number) {
  let text = "";
  for (let i = 0; text.length < n * 2 ** 20 - 100; i++) text += `promstatus_target_up{instance="host-${i}:9100"} 1\n`;
  const lines = Buffer.from(text);
  const packed = packLines(lines);
  packed.members = ownMemoryTogether(packed.members);
  return { lines, packed };
}

describe("member readers", () => {
  it("frees retired members at once when nothing reads them, else after their last reader, once", () => {
    const { packed } = family(2);
    const idle = family(1).packed;
    retireMembers(idle.members);
    expect(freed(idle.members)).toBe(true);

    const a = readMembers([packed.members]);
    const b = readMembers(packedMembers([Buffer.from("plain\n"), packed]));
    retireMembers(packed.members);
    expect(whole(packed.members)).toBe(true);
    a();
    a(); // a second call counts for nothing
    expect(whole(packed.members)).toBe(true);
    b();
    expect(freed(packed.members)).toBe(true);
  });

  it("never frees members a scrape's inflates are still reading, even once nobody else reads them", async () => {
    const { lines, packed } = family(6);
    const chunks = plainChunks([packed]);
    const first = chunks.next(); // queues the first members' inflates, a few ahead
    retireMembers(packed.members); // replaced meanwhile, and the scrape gone: nothing else reads them
    const texts = [(await first).value as Uint8Array];
    // The members queued before were read whole by their inflates.
    for (let i = 1; i < 3; i++) texts.push((await chunks.next()).value as Uint8Array);
    const expected = packed.sizes.slice(0, 3).reduce((n, s) => n + s, 0);
    expect(Buffer.concat(texts).equals(lines.subarray(0, expected))).toBe(true);
    await chunks.return(undefined);
    // Freed once the inflates asked for ahead are done too.
    await waitFor("the members freed", async () => (freed(packed.members) ? true : undefined), 5000, 5);
  });
});
