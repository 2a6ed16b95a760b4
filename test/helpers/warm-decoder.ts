import { targetsAnswer } from "../../scripts/bench/generate.js";
import { decodePool } from "../../src/poll/decode-pool.js";
import { decodeOptions } from "./decode-options.js";
import { fixtureText } from "./fixtures.js";

/**
 * Starts the shared pool's threads and waits until each has decoded an answer, as the exporter starts
 * its threads ahead of the first poll. Without it, a test's first poll pays for a thread's start (an
 * isolate, and the sources loaded through tsx: 1-2 s on Node 20 with a busy core) out of its 2 s
 * timeout, and fails timeout on a slow machine. For a beforeAll, with a timeout of its own.
 */
export async function warmDecoderThreads(): Promise<void> {
  // A real buildinfo answer padded past the 32 KiB decoded inline: a whole-answer worker.
  const real = JSON.parse(fixtureText("upstream/prometheus-buildinfo.json")) as { data: object };
  const body = Buffer.from(JSON.stringify({ ...real, data: { ...real.data, padding: " ".repeat(40 * 1024) } }));
  const whole = await decodePool.decode({ endpoint: "buildinfo", body, encoding: undefined, options: decodeOptions() });
  if (!whole.ok) throw new Error(`the whole-answer worker did not decode: ${whole.reason}`);
  const stream = decodePool.openStream("targets", decodeOptions());
  stream.begin({});
  await stream.write(Buffer.from(targetsAnswer(10)));
  const end = await stream.end(60_000);
  if (end.gaveUp || !end.result.ok) throw new Error("the streaming thread did not decode");
}
