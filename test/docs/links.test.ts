import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { headingAnchors, markdownLinks } from "./markdown.js";

// Every relative link in the README and docs/ leads somewhere: the file exists, and an #anchor names a
// heading of that file (as GitHub makes anchors from headings).

const root = fileURLToPath(new URL("../../", import.meta.url));
const docs = join(root, "docs");
const pages = [
  join(root, "README.md"),
  ...readdirSync(docs)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(docs, f)),
];

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe.each(pages.map((p) => [relative(root, p), p]))("%s", (_name, page) => {
  const text = readFileSync(page, "utf8");
  const links = markdownLinks(text).filter((l) => !isExternal(l.target));

  it("links only to files that exist and headings they have", () => {
    const broken: string[] = [];
    for (const { target, line } of links) {
      const [path = "", anchor] = target.split("#", 2) as [string, string | undefined];
      const file = path === "" ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`line ${line}: ${target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith(".md") || statSync(file).isDirectory()) {
        broken.push(`line ${line}: ${target}: an anchor into a file that is not Markdown`);
      } else if (!headingAnchors(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`line ${line}: ${target}: no heading makes #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

it("checks the README and every page under docs/", () => {
  expect(pages.map((p) => relative(root, p))).toEqual(
    expect.arrayContaining(["README.md", "docs/configuration.md", "docs/deployment.md", "docs/metrics.md"]),
  );
});
