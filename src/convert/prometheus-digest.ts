import { createHash } from "node:crypto";

// How a Prometheus's config, rules, flags and features are hashed: as JSON with every object's keys
// sorted, so that neither the server's order nor the parser's changes the SHA-256.

/** JSON of a value with object keys sorted at every depth (arrays keep their order: it can matter). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** SHA-256, hex, of a value's canonical JSON. */
export function digestOf(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
