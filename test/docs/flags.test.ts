import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { USAGE } from "../../src/cli/flags.js";

// The flags table in docs/configuration.md documents every flag --help prints, and no other.

const page = readFileSync(fileURLToPath(new URL("../../docs/configuration.md", import.meta.url)), "utf8");

const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])--?[a-z][a-z.-]*[a-z]/g)].map((m) => m[0]));

it("lists every flag of --help in the Flags table, and only those", () => {
  const section = page.slice(page.indexOf("## Flags"), page.indexOf("\n## ", page.indexOf("## Flags") + 1));
  const rows = section.split("\n").filter((line) => line.startsWith("| `-"));
  const documented = new Set(rows.flatMap((row) => [...flagsIn(row.split("|")[1] as string)]));
  const helpFlags = new Set(
    USAGE.split("\n")
      .filter((line) => /^\s+-/.test(line))
      .flatMap((line) => [...flagsIn(line.trim().split(/\s{2,}/)[0] as string)]),
  );
  expect(helpFlags.size).toBeGreaterThan(10);
  expect([...documented].sort()).toEqual([...helpFlags].sort());
});

it("says which flag POST /-/reload needs", () => {
  expect(page).toMatch(/`POST \/-\/reload`[^\n]*\*\*needs `--web\.enable-lifecycle`\*\*/);
});
