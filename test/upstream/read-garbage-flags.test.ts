import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../src/upstream/read-garbage.ts", import.meta.url));

// What `gc` a worker thread and a vm context started after the module was loaded see, in a process
// started with the given NODE_OPTIONS and arguments.
function gcSeenLater(nodeOptions: string, args: string[] = []): string {
  const script = `
    await import(${JSON.stringify(MODULE)});
    const { runInNewContext } = await import("node:vm");
    const { Worker } = await import("node:worker_threads");
    const inWorker = await new Promise((resolve) => {
      const w = new Worker("import { parentPort } from 'node:worker_threads'; parentPort.postMessage(typeof gc);", { eval: true });
      w.once("message", (m) => { resolve(m); void w.terminate(); });
    });
    console.log(typeof globalThis.gc, runInNewContext("typeof gc"), inWorker);`;
  return execFileSync(process.execPath, [...args, "--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: "utf8",
  }).trim();
}

describe("taking V8's gc for the read pieces", () => {
  it("gives no other code a gc it was not started with", () => {
    expect(gcSeenLater("")).toBe("undefined undefined undefined");
  });

  // NODE_OPTIONS is how a container sets flags: it is not in process.execArgv.
  it.each([
    ["NODE_OPTIONS", "--expose-gc", []],
    ["an argument", "", ["--expose-gc"]],
  ])("takes none away from code started with it (%s)", (_, nodeOptions, args) => {
    expect(gcSeenLater(nodeOptions, args)).toBe("function function function");
  });
});
