import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { PROBE_HISTORY_SIZE, Prober } from "../../src/probe/prober.js";

// The probe history without network: refused probes never reach an upstream.

const modules = parseConfig("modules: {}\n", "/tmp/exporter.yml").modules;
const prober = () => new Prober(() => modules, 500, pino({ level: "silent" }));
const refused = (p: Prober, i: number) =>
  p.probe({ target: `ftp://host-${i}`, module: "prometheus", scrapeTimeoutSeconds: undefined, debug: false });

describe("Prober history", () => {
  it("keeps the last probes, newest first, and forgets the oldest with their accounts", async () => {
    const p = prober();
    for (let i = 0; i < PROBE_HISTORY_SIZE + 5; i++) await refused(p, i);
    const history = p.history();
    expect(history).toHaveLength(PROBE_HISTORY_SIZE);
    expect(history[0]?.target).toBe(`ftp://host-${PROBE_HISTORY_SIZE + 4}`);
    expect(history.at(-1)?.target).toBe("ftp://host-5");
    expect(p.account(1)).toBeUndefined();
    expect(p.account(history[0]?.id as number)).toMatch(/^Probe refused: target must be an http or https URL/);
  });

  it("redacts the password of a refused target in the history and its account", async () => {
    const p = prober();
    const answer = await p.probe({
      target: "http://u:hunter2-secret@host:9090/?q=1",
      module: "prometheus",
      scrapeTimeoutSeconds: undefined,
      debug: false,
    });
    expect(answer.status).toBe(400);
    const [record] = p.history();
    expect(JSON.stringify(record)).not.toContain("hunter2-secret");
    expect(record?.target).toBe("http://u:xxxxx@host:9090/?q=1");
  });
});
