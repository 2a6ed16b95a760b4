import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// bcrypt runs in a worker thread. On the main thread even bcryptjs's async form computes in slices of
// up to 100 ms, and while it does, the server accepts about one connection per slice: a flood of 50
// wrong passwords kept /-/healthy and every scrape waiting for 4 s. The main thread only passes
// messages.
//
// The unit of the queue is a login, not a compare: the user's hash and all the padding of a failed
// login are one job, one message, done in one turn. Were the decoys separate jobs, each would queue
// behind every login in flight again, and a cheap user's wrong password, padded with the most decoys,
// would wait the longest under concurrency: K logins kept in flight made a cost-4 user's answer take
// 9 s, a cost-12 user's 1.5 s. One turn each, every failed login waits behind the same queue once
// and then does the same work.

const BCRYPTJS = createRequire(import.meta.url).resolve("bcryptjs");
const SOURCE = `
const { parentPort } = require("node:worker_threads");
const bcrypt = require(${JSON.stringify(BCRYPTJS)});
const compare = (password, hash) => { try { return bcrypt.compareSync(password, hash); } catch { return false; } };
parentPort.on("message", ({ id, password, hash, padding }) => {
  const ok = hash !== undefined && compare(password, hash);
  if (!ok) for (const decoy of padding) compare(password, decoy);
  parentPort.postMessage({ id, ok });
});`;

/** bcrypt's compare of one password with one hash. */
export type Compare = (password: string, hash: string) => Promise<boolean>;

interface Login {
  password: string;
  hash: string | undefined;
  padding: readonly string[];
  resolve: (ok: boolean) => void;
}

/** Checks logins against bcrypt hashes off the main thread, one whole login at a time, in a bounded FIFO queue. */
export class BcryptWorker {
  private worker: Worker | undefined;
  private readonly waiting: Login[] = [];
  private running = false;
  /** The answer awaited from the thread: the running login's id, and where its result goes. */
  private reply: { id: number; resolve: (ok: boolean) => void } | undefined;
  private nextId = 0;

  /**
   * @param compare replaces the worker thread's compare (tests record the work with it); the queue,
   *   one login per turn, is the same.
   */
  constructor(
    readonly queueLimit = 64,
    private readonly compare?: Compare,
  ) {}

  /** Logins waiting or running. */
  get queued(): number {
    return this.waiting.length + (this.running ? 1 : 0);
  }

  /**
   * Whether the password is right for `hash`; if not (or `hash` is undefined: an unknown user), the
   * `padding` decoys are compared too, in the same turn. A right password costs its own hash only.
   */
  check(password: string, hash: string | undefined, padding: readonly string[]): Promise<boolean> {
    return new Promise((resolve) => {
      this.waiting.push({ password, hash, padding, resolve });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let login = this.waiting.shift(); login; login = this.waiting.shift()) {
        login.resolve(await this.run(login).catch(() => false)); // fail closed
      }
    } finally {
      this.running = false;
    }
  }

  /** One login's whole work: in the thread as one message, or through the injected compare. */
  private async run({ password, hash, padding }: Login): Promise<boolean> {
    const compare = this.compare;
    if (compare) {
      // The same steps as the thread's, one compare after another.
      const ok = hash !== undefined && (await compare(password, hash).catch(() => false));
      if (!ok) for (const decoy of padding) await compare(password, decoy).catch(() => false);
      return ok;
    }
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.reply = { id, resolve };
      worker.ref();
      worker.postMessage({ id, password, hash, padding });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SOURCE, { eval: true });
    worker.unref();
    const answer = (ok: boolean) => {
      const reply = this.reply;
      this.reply = undefined;
      reply?.resolve(ok);
    };
    worker.on("message", ({ id, ok }: { id: number; ok: boolean }) => {
      worker.unref(); // an idle worker must not keep the process alive; the next login refs it again
      if (id === this.reply?.id) answer(ok === true);
    });
    const fail = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      answer(false); // fail closed
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    this.worker = worker;
    return worker;
  }
}
