import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// bcrypt runs in a worker thread. On the main thread even bcryptjs's async form computes in slices of
// up to 100 ms, and while it does, the server accepts about one connection per slice: a flood of 50
// wrong passwords kept /-/healthy and every scrape waiting for 4 s. The worker compares one at a time;
// the main thread only passes messages.

const BCRYPTJS = createRequire(import.meta.url).resolve("bcryptjs");
const SOURCE = `
const { parentPort } = require("node:worker_threads");
const bcrypt = require(${JSON.stringify(BCRYPTJS)});
parentPort.on("message", ({ id, password, hash }) => {
  let ok = false;
  try { ok = bcrypt.compareSync(password, hash); } catch {}
  parentPort.postMessage({ id, ok });
});`;

/** Compares passwords with bcrypt hashes off the main thread, one at a time, with a bounded queue. */
export class BcryptWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, (ok: boolean) => void>();
  private nextId = 0;

  constructor(readonly queueLimit = 64) {}

  /** Compares waiting or running. */
  get queued(): number {
    return this.pending.size;
  }

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.ref();
      worker.postMessage({ id, password, hash });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SOURCE, { eval: true });
    worker.unref();
    worker.on("message", ({ id, ok }: { id: number; ok: boolean }) => {
      this.pending.get(id)?.(ok);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref(); // an idle worker must not keep the process alive
    });
    const fail = () => {
      for (const resolve of this.pending.values()) resolve(false); // fail closed
      this.pending.clear();
      this.worker = undefined;
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    this.worker = worker;
    return worker;
  }
}
