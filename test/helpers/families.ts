import { gunzipSync } from "node:zlib";
import { type FamilyLines, isPacked } from "../../src/exposition/pack.js";

/** The plain bytes of a family's lines, a packed family's members inflated. */
export function linesBytes(lines: FamilyLines | undefined): Buffer {
  if (lines === undefined) return Buffer.alloc(0);
  return isPacked(lines) ? gunzipSync(Buffer.concat(lines.members)) : Buffer.from(lines);
}

/** A family's lines as text. */
export const linesText = (lines: FamilyLines | undefined): string => linesBytes(lines).toString("utf8");

/** Families as [name, text] pairs, comparable whether they came packed or plain. */
export function familyTexts(families: readonly [string, FamilyLines][]): [string, string][] {
  return families.map(([name, lines]) => [name, linesText(lines)]);
}

/** An exposition's pieces as text, as a plain scrape serves them. */
export function partsText(parts: readonly FamilyLines[]): string {
  return Buffer.concat(parts.map(linesBytes)).toString("utf8");
}

/** The text gzip members back to back inflate to (one gzip stream). */
export function gzipText(members: readonly Uint8Array[] | undefined): string {
  return gunzipSync(Buffer.concat(members ?? [])).toString("utf8");
}
