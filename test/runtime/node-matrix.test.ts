import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  dockerfileEnv,
  dockerfileNodeFlags,
  dockerfileNodeMajor,
  failedTests,
  runtimeEnv,
  runtimeMajors,
} from "../../scripts/test-matrix.mjs";

// The suite must run on the Node.js the image ships, not only on the one of the machine that runs it.
const root = new URL("../../", import.meta.url);
const dockerfile = readFileSync(new URL("Dockerfile", root), "utf8");
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const major = (version: string) => Number(version.replace(/^v/, "").split(".")[0]);

describe("the Node.js test matrix", () => {
  it("names each failed test and a file that did not load, with the first line of why, for a CI log's tail", () => {
    const file = (name: string) => fileURLToPath(new URL(name, root));
    const report = {
      testResults: [
        { name: file("test/a.test.ts"), status: "passed", assertionResults: [{ status: "passed", fullName: "fine" }] },
        {
          name: file("test/b.test.ts"),
          status: "failed",
          assertionResults: [
            { status: "passed", fullName: "fine too" },
            {
              status: "failed",
              fullName: "b fails",
              failureMessages: ["\nAssertionError: expected 1 to be 2\n    at b"],
            },
          ],
        },
        {
          name: file("test/c.test.ts"),
          status: "failed",
          message: "Error: cannot load c\nstack",
          assertionResults: [],
        },
      ],
    };
    expect(failedTests(report)).toEqual([
      "test/b.test.ts > b fails: AssertionError: expected 1 to be 2",
      "test/c.test.ts: Error: cannot load c",
    ]);
  });

  it("tests the major of the Dockerfile's runtime stage", () => {
    // Read here on its own, not through the script: FROM node:<ARG>-... AS runtime.
    const arg = /^ARG NODE_VERSION=(\d+)$/m.exec(dockerfile)?.[1];
    expect(dockerfile).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim AS runtime$/m);
    expect(dockerfileNodeMajor()).toBe(Number(arg));
    expect(runtimeMajors()).toContain(Number(arg));
  });

  it("runs node as the image does: the benchmarks and npm start give the ENTRYPOINT's options and the image's environment", () => {
    // Read here on its own: ENTRYPOINT ["node", <options>, "dist/main.js"].
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? "[]") as string[];
    const options = entrypoint.slice(1, entrypoint.indexOf("dist/main.js"));
    expect(options).toContain("--max-semi-space-size=4");
    expect(dockerfileNodeFlags()).toEqual(options);
    // glibc reads its MALLOC_ variables when the process starts: they go before node, as the image sets them.
    const env = Object.entries(dockerfileEnv()).map(([name, value]) => `${name}=${value}`);
    expect(env).toContain("MALLOC_ARENA_MAX=1");
    expect(pkg.scripts.start).toBe([...env, "node", ...options, "dist/main.js"].join(" "));
  });

  it("tests the image's runtime under the image's environment and node options, the floor without", () => {
    const image = runtimeEnv(dockerfileNodeMajor(), { NODE_OPTIONS: "--trace-warnings" });
    expect(image).toMatchObject({ NODE_ENV: "production", MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "131072" });
    expect(image.NODE_OPTIONS).toBe(["--trace-warnings", ...dockerfileNodeFlags()].join(" "));
    expect(runtimeEnv(dockerfileNodeMajor(), {}).NODE_OPTIONS).toBe(dockerfileNodeFlags().join(" "));
    const floor = runtimeMajors()[0] as number;
    if (floor !== dockerfileNodeMajor()) expect(runtimeEnv(floor)).toEqual({});
  });

  // Only in the matrix's run of the image's major: this process was started as the image starts node.
  it.runIf(process.env.PROMSTATUS_TEST_NODE_MAJORS !== undefined && major(process.version) === dockerfileNodeMajor())(
    "runs the image's major with the image's environment",
    () => {
      expect(process.env.MALLOC_ARENA_MAX).toBe("1");
      expect(process.env.NODE_OPTIONS).toContain("--max-semi-space-size=4");
    },
  );

  it("tests the oldest Node.js package.json supports", () => {
    expect(runtimeMajors()[0]).toBe(Number(/^>=(\d+)(?:\.\d+)*$/.exec(pkg.engines.node)?.[1]));
  });

  it("is what the README's test command runs", () => {
    expect(pkg.scripts.test).toBe("node scripts/test-matrix.mjs");
  });

  // Only when run through `npm test` (the matrix sets the variable): this process is one of its runtimes.
  it.runIf(process.env.PROMSTATUS_TEST_NODE_MAJORS !== undefined)("runs on one of the majors under test", () => {
    expect(process.env.PROMSTATUS_TEST_NODE_MAJORS?.split(",").map(Number)).toEqual(runtimeMajors());
    expect(runtimeMajors()).toContain(major(process.version));
  });
});
