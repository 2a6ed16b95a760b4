import type { ServerResponse } from "node:http";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig } from "../../src/config/types.js";
import { Prober } from "../../src/probe/prober.js";
import { waitFor } from "../harness/processes.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { fixtureText } from "../helpers/fixtures.js";

// A reload (SIGHUP, POST /-/reload) gives the prober a new set of modules: a probe that arrives after
// it is polled with the new config, never served what a poll with the old one fetched. A loopback
// Alertmanager stand-in records the credentials of every request and holds answers on demand.

const status = fixtureText("upstream/alertmanager-status-clustered.json");
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const configWith = (user: string, minInterval?: string) =>
  parseConfig(
    JSON.stringify({
      modules: {
        secured: {
          kind: "alertmanager",
          ...(minInterval ? { min_interval: minInterval } : {}),
          basic_auth: { username: user, password: "pass" },
          allowed_targets: ["http://127\\.0\\.0\\.1:[0-9]+"],
        },
      },
    }),
    "/tmp/exporter.yml",
  ).modules;

const basic = (user: string) => `Basic ${Buffer.from(`${user}:pass`).toString("base64")}`;

describe("Prober across a reload", () => {
  it("does not let a probe after a reload join a poll started before it with the old credentials", async () => {
    const held: ServerResponse[] = [];
    upstream = await startFakeUpstream((_req, res) => held.push(res));
    const url = upstream.url;
    const seen = () => (upstream as FakeUpstream).requests.map((r) => r.headers.authorization);
    let modules: ReadonlyMap<string, ModuleConfig> = configWith("old-user");
    const p = new Prober(() => modules, 500, pino({ level: "silent" }));
    const ask = () => p.probe({ target: url, module: "secured", scrapeTimeoutSeconds: undefined, debug: false });

    const before = ask();
    await waitFor("the first request", async () => (held.length >= 1 ? true : undefined), 10_000, 10);
    modules = configWith("new-user"); // the reload
    const after = ask();
    await waitFor("the second request", async () => (held.length >= 2 ? true : undefined), 10_000, 10);
    for (const res of held) res.writeHead(200, { "content-type": "application/json" }).end(status);
    expect((await Promise.all([before, after])).map((a) => a.status)).toEqual([200, 200]);
    expect(seen()).toEqual([basic("old-user"), basic("new-user")]);
    expect(p.history().map((r) => r.served)).toEqual(["polled", "polled"]);
  });

  it("does not serve a min_interval result kept before a reload, nor keep one polled before it", async () => {
    const held: ServerResponse[] = [];
    let holding = false;
    const answer = (res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(status);
    upstream = await startFakeUpstream((_req, res) => (holding ? held.push(res) : answer(res)));
    const url = upstream.url;
    const seen = () => (upstream as FakeUpstream).requests.map((r) => r.headers.authorization);
    let modules: ReadonlyMap<string, ModuleConfig> = configWith("old-user", "10m");
    const p = new Prober(() => modules, 500, pino({ level: "silent" }));
    const ask = () => p.probe({ target: url, module: "secured", scrapeTimeoutSeconds: undefined, debug: false });

    await ask();
    await ask(); // within min_interval: no request
    modules = configWith("new-user", "10m");
    await ask();
    expect(seen()).toEqual([basic("old-user"), basic("new-user")]);

    // A poll started before a reload and ending after it is not kept for the new config.
    holding = true;
    modules = configWith("old-user", "10m");
    const late = ask();
    await waitFor("the held request", async () => (held.length >= 1 ? true : undefined), 10_000, 10);
    modules = configWith("new-user", "10m");
    for (const res of held) answer(res);
    await late;
    holding = false;
    await ask();
    expect(seen().slice(2)).toEqual([basic("old-user"), basic("new-user")]);
    expect(p.history().map((r) => r.served)).toEqual(["polled", "polled", "polled", "cached", "polled"]);
  });
});
