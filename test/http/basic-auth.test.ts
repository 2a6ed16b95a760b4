import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import bcrypt from "bcryptjs";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { basicAuth } from "../../src/http/basic-auth.js";
import { bcryptCost } from "../../src/http/equal-cost.js";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

async function serve(users: Map<string, string>, compare?: (p: string, h: string) => Promise<boolean>) {
  const app = express();
  app.get("/-/healthy", (_req, res) => void res.send("Healthy.\n"));
  app.use(basicAuth(() => users, compare ? { compare } : {}));
  app.get("/metrics", (_req, res) => void res.send("ok\n"));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("basic auth", () => {
  it("keeps a verified scrape cheap through a flood of wrong passwords", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 4)]]);
    const compared: string[] = [];
    const url = await serve(users, async (password, hash) => {
      compared.push(password);
      return bcrypt.compare(password, hash);
    });
    const get = (password: string) =>
      fetch(`${url}/metrics`, { headers: { authorization: basic("prometheus", password) } }).then((r) => r.status);
    expect(await get("right")).toBe(200);
    for (let i = 0; i < 1500; i += 50) {
      const wave = await Promise.all(Array.from({ length: 50 }, (_, j) => get(`wrong-${i + j}`)));
      expect(new Set(wave)).toEqual(new Set([401]));
    }
    compared.length = 0;
    expect(await get("right")).toBe(200);
    expect(compared).toEqual([]); // remembered: no bcrypt for Prometheus's scrape
  });

  it("remembers a repeated wrong password too, in a bounded share", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 4)]]);
    let calls = 0;
    const url = await serve(users, async (p, h) => {
      calls++;
      return bcrypt.compare(p, h);
    });
    const get = (password: string) =>
      fetch(`${url}/metrics`, { headers: { authorization: basic("prometheus", password) } }).then((r) => r.status);
    expect([await get("wrong"), await get("wrong")]).toEqual([401, 401]);
    expect(calls).toBe(1);
    for (let i = 0; i < 150; i++) await get(`other-${i}`); // more than the failures' share
    await get("wrong");
    expect(calls).toBe(1 + 150 + 1); // pushed out of the bounded share: compared again
  });

  it("compares an unknown user against a hash of the configured cost", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 6)]]);
    const hashes: string[] = [];
    const url = await serve(users, async (p, h) => {
      hashes.push(h);
      return bcrypt.compare(p, h);
    });
    const res = await fetch(`${url}/metrics`, { headers: { authorization: basic("nobody", "guess") } });
    expect(res.status).toBe(401);
    expect(hashes.map(bcryptCost)).toEqual([6]);
  });

  it("leaves the event loop free while bcrypt works through a flood", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 10)]]);
    const url = await serve(users);
    let floodDone = false;
    const flood = Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${url}/metrics`, { headers: { authorization: basic("prometheus", `wrong-${i}`) } }),
      ),
    ).then(() => {
      floodDone = true;
    });
    // Health checks are answered between bcrypt's rounds, long before the flood is through.
    for (let i = 0; i < 10; i++) expect((await fetch(`${url}/-/healthy`)).status).toBe(200);
    expect(floodDone).toBe(false);
    await flood;
  });
});

describe("basic auth under a flood beyond its queue", () => {
  it("turns the excess away with 429 at once, and still lets a remembered scrape in", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 10)]]);
    const url = await serve(users);
    const get = (password: string) =>
      fetch(`${url}/metrics`, { headers: { authorization: basic("prometheus", password) } }).then((r) => r.status);
    expect(await get("right")).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 120 }, (_, i) => get(`wrong-${i}`)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(await get("right")).toBe(200);
  });
});

// Timing without clocks: bcrypt's work is 2^cost rounds, so the work of a check is the sum of 2^cost
// over the hashes it compared. Fake hashes of any cost and a fake compare keep these tests fast.
describe("basic auth: a wrong password costs the same for every user", () => {
  const fakeHash = (cost: number, n: number) => `$2b$${String(cost).padStart(2, "0")}$${String(n).padEnd(53, ".")}`;
  const passwords = new Map<string, string>();
  const table = (costs: Record<string, number>) =>
    new Map(
      Object.entries(costs).map(([user, cost], n) => {
        const hash = fakeHash(cost, n);
        passwords.set(hash, `right-${user}`);
        return [user, hash];
      }),
    );
  let compared: string[] = [];
  const fakeCompare = async (password: string, hash: string) => {
    compared.push(hash);
    return passwords.get(hash) === password;
  };
  /** The status of one request, and the bcrypt work it did. */
  const attempt = async (url: string, user: string, password: string) => {
    compared = [];
    const res = await fetch(`${url}/metrics`, { headers: { authorization: basic(user, password) } });
    return { status: res.status, work: compared.reduce((n, h) => n + 2 ** (bcryptCost(h) as number), 0) };
  };

  it("does the work of the file's highest cost for a wrong password of a cheap user, a dear one, or an unknown one", async () => {
    const url = await serve(table({ cheap: 4, middle: 11, dear: 12 }), fakeCompare);
    for (const user of ["cheap", "middle", "dear", "nobody"]) {
      expect(await attempt(url, user, "wrong"), user).toEqual({ status: 401, work: 2 ** 12 });
    }
    // The user's own hash is compared first: the decoys pad, they do not replace it.
    await attempt(url, "cheap", "wrong-again");
    expect(compared.map(bcryptCost)).toEqual([4, 4, 5, 6, 7, 8, 9, 10, 11]);
    // A right password still lets the user in, at the cost of its own hash only.
    expect(await attempt(url, "cheap", "right-cheap")).toEqual({ status: 200, work: 2 ** 4 });
    expect(await attempt(url, "dear", "right-dear")).toEqual({ status: 200, work: 2 ** 12 });
  });

  it("does not make a wrong password cheaper for a user whose login is remembered", async () => {
    const url = await serve(table({ cheap: 4, dear: 10 }), fakeCompare);
    expect(await attempt(url, "cheap", "right-cheap")).toEqual({ status: 200, work: 2 ** 4 });
    expect(await attempt(url, "cheap", "right-cheap")).toEqual({ status: 200, work: 0 }); // remembered
    for (const password of ["wrong", "right-cheap ", "right-chea", "RIGHT-CHEAP"]) {
      expect(await attempt(url, "cheap", password), password).toEqual({ status: 401, work: 2 ** 10 });
      expect(await attempt(url, "dear", password), password).toEqual({ status: 401, work: 2 ** 10 });
      expect(await attempt(url, "nobody", password), password).toEqual({ status: 401, work: 2 ** 10 });
    }
    // Another user's remembered password is no key to this one: refused after the full work.
    expect(await attempt(url, "dear", "right-cheap")).toEqual({ status: 401, work: 2 ** 10 });
    // A repeated wrong password is remembered alike for every user, known or not.
    for (const user of ["cheap", "dear", "nobody"])
      expect(await attempt(url, user, "wrong")).toEqual({ status: 401, work: 0 });
  });

  it("follows the costs of the users table in force (a reload)", async () => {
    let users = table({ cheap: 4 });
    const app = express();
    app.use(basicAuth(() => users, { compare: fakeCompare }));
    app.get("/metrics", (_req, res) => void res.send("ok\n"));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await attempt(url, "nobody", "x")).toEqual({ status: 401, work: 2 ** 4 });
    users = table({ cheap: 4, dear: 13 });
    expect(await attempt(url, "cheap", "x")).toEqual({ status: 401, work: 2 ** 13 });
    expect(await attempt(url, "nobody", "y")).toEqual({ status: 401, work: 2 ** 13 });
  });

  it("pads with real work: bcrypt refuses every decoy after computing it at its cost", async () => {
    const hashes = [bcrypt.hashSync("right", 4), bcrypt.hashSync("right", 6)];
    const url = await serve(
      new Map([
        ["cheap", hashes[0] as string],
        ["dear", hashes[1] as string],
      ]),
      async (p, h) => {
        compared.push(h);
        return bcrypt.compare(p, h);
      },
    );
    for (const user of ["cheap", "dear", "nobody"]) {
      expect(await attempt(url, user, "right-but-not-for-a-decoy"), user).toEqual({ status: 401, work: 2 ** 6 });
      // Every decoy is a well-formed hash: bcrypt runs its rounds rather than refusing it at once.
      for (const hash of compared) expect(hash).toMatch(/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/);
    }
    expect(await attempt(url, "cheap", "right")).toEqual({ status: 200, work: 2 ** 4 });
  });
});

// Under concurrency too: were a login's decoys separate jobs, each would wait behind every login in
// flight, and a cheap user's wrong password (the most decoys) would wait the longest. The injected
// compare records the order in which the queue does the work of several logins sent side by side.
describe("basic auth: logins sent side by side take one turn each in the bcrypt queue", () => {
  const fakeHash = (cost: number, n: number) => `$2b$${String(cost).padStart(2, "0")}$${String(n).padEnd(53, ".")}`;

  it("does each login's compare and padding together, in arrival order, the full work for a failed one", async () => {
    const users = new Map([
      ["cheap", fakeHash(4, 0)],
      ["middle", fakeHash(7, 1)],
      ["dear", fakeHash(10, 2)],
    ]);
    const rightPassword = new Map([[users.get("cheap") as string, "right-cheap"]]);
    const logins: [string, string][] = [
      ["cheap", "wrong-1"],
      ["nobody", "wrong-2"],
      ["middle", "wrong-3"],
      ["cheap", "right-cheap"],
      ["dear", "wrong-4"],
      ["cheap", "wrong-5"],
      ["nobody", "wrong-6"],
      ["middle", "wrong-7"],
    ];
    // No compare starts before every login has reached the check: all of them are in flight at once.
    let release!: () => void;
    const allIn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const arrivals: string[] = [];
    const work: { password: string; cost: number }[] = [];
    const app = express();
    app.use((req, _res, next) => {
      const decoded = Buffer.from((req.headers.authorization ?? "").slice(6), "base64").toString();
      arrivals.push(decoded.slice(decoded.indexOf(":") + 1));
      if (arrivals.length === logins.length) setImmediate(release);
      next();
    });
    app.use(
      basicAuth(() => users, {
        compare: async (password, hash) => {
          await allIn;
          work.push({ password, cost: bcryptCost(hash) as number });
          await new Promise((resolve) => setImmediate(resolve)); // a compare takes time: others may run meanwhile
          return rightPassword.get(hash) === password;
        },
      }),
    );
    app.get("/metrics", (_req, res) => void res.send("ok\n"));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const statuses = await Promise.all(
      logins.map(([user, password]) =>
        fetch(`${url}/metrics`, { headers: { authorization: basic(user, password) } }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual(logins.map(([, password]) => (password === "right-cheap" ? 200 : 401)));

    // The work in the order done, one run per login: no login's compares between another's.
    const runs: { password: string; costs: number[] }[] = [];
    for (const { password, cost } of work) {
      const last = runs[runs.length - 1];
      if (last?.password === password) last.costs.push(cost);
      else runs.push({ password, costs: [cost] });
    }
    expect(runs.map((r) => r.password)).toEqual(arrivals); // each login once, first come first served
    const workOf = (password: string) =>
      (runs.find((r) => r.password === password)?.costs ?? []).reduce((n, c) => n + 2 ** c, 0);
    for (const [user, password] of logins) {
      expect(workOf(password), `${user}:${password}`).toBe(password === "right-cheap" ? 2 ** 4 : 2 ** 10);
    }
    expect(runs.find((r) => r.password === "wrong-1")?.costs).toEqual([4, 4, 5, 6, 7, 8, 9]);
  });

  it("in the worker thread: one message per login lets a right password in, and no wrong one", async () => {
    const users = new Map([
      ["cheap", bcrypt.hashSync("right-cheap", 4)],
      ["dear", bcrypt.hashSync("right-dear", 6)],
    ]);
    const url = await serve(users);
    const get = (user: string, password: string) =>
      fetch(`${url}/metrics`, { headers: { authorization: basic(user, password) } }).then((r) => r.status);
    const attempts: [string, string, number][] = [
      ["cheap", "wrong", 401],
      ["dear", "right-cheap", 401],
      ["nobody", "right-dear", 401],
      ["cheap", "right-cheap", 200],
      ["dear", "right-dear", 200],
      ["dear", "wrong", 401],
    ];
    const statuses = await Promise.all(attempts.map(([user, password]) => get(user, password)));
    expect(statuses).toEqual(attempts.map(([, , status]) => status));
  });
});
