import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import bcrypt from "bcryptjs";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { basicAuth, bcryptCost } from "../../src/http/basic-auth.js";

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
