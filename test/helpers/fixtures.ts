import { readFileSync } from "node:fs";
import type { z } from "zod";

const root = new URL("../fixtures/", import.meta.url);

export function fixtureText(path: string): string {
  return readFileSync(new URL(path, root), "utf8");
}

export function fixtureJson(path: string): unknown {
  return JSON.parse(fixtureText(path));
}

/** A captured upstream answer, parsed with the exporter's own schema (so the schema is tested too). */
export function upstreamFixture<T>(name: string, schema: z.ZodType<T>): T {
  return schema.parse(fixtureJson(`upstream/${name}`));
}
