// Asks GET /-/healthy of each address every N ms, as a liveness probe does, and keeps each answer's
// latency with the time it was asked, until its parent says "stop"; then sends them back and exits.
// A request is sent on time even if the one before has no answer yet, so a stalled daemon shows as the
// latency of every probe that waited on it. Usage (forked): healthy-probe.ts <ms> <host:port>...
import { Agent, get } from "node:http";

const [every, ...addresses] = process.argv.slice(2);
const EVERY_MS = Number(every);
const TIMEOUT_MS = 10_000;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
/** Per address, [time asked (epoch ms), latency ms (-1: no answer within the timeout, or an error)]. */
const samples: Record<string, [number, number][]> = Object.fromEntries(addresses.map((a) => [a, []]));

function probe(address: string): void {
  const asked = Date.now();
  const t0 = performance.now();
  let done = false;
  const record = (ms: number) => {
    if (done) return;
    done = true;
    samples[address]?.push([asked, ms]);
  };
  const req = get(`http://${address}/-/healthy`, { agent, timeout: TIMEOUT_MS }, (res) => {
    res.resume();
    res.once("end", () => record(res.statusCode === 200 ? performance.now() - t0 : -1));
  });
  req.once("timeout", () => req.destroy(new Error("timeout")));
  req.once("error", () => record(-1));
}

const timer = setInterval(() => {
  for (const address of addresses) probe(address);
}, EVERY_MS);

process.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  // Answers still on their way are waited for (up to the timeout), so a stall at the end is counted.
  const waitUntil = Date.now() + TIMEOUT_MS;
  const finish = () => {
    const pending = agent.requests && Object.values(agent.requests).some((q) => (q?.length ?? 0) > 0);
    const inFlight = Object.values(agent.sockets).some((s) => (s?.length ?? 0) > 0);
    if ((pending || inFlight) && Date.now() < waitUntil) return void setTimeout(finish, 20);
    process.send?.(samples, () => process.exit(0));
  };
  finish();
});
process.on("disconnect", () => process.exit(0));
process.send?.("ready");
