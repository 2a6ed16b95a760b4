// Runs the whole test suite once per Node.js major that ships: the floor of package.json's `engines`
// (what `npm install` users run) and the major of the Dockerfile's runtime stage (what the image runs).
// A major other than the running one is installed from the npm registry (the `node-<os>-<arch>`
// package) into .runtimes/, never over the system Node.js. Plain Node, no dependencies of its own.
//
//   npm test                                     every runtime, every test
//   npm test -- test/convert                     every runtime, the named tests (vitest filters)
//   PROMSTATUS_TEST_RUNTIMES=20 npm test         one runtime, for a quick local loop
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The majors under test: engines floor and the image's runtime, in that order, without repeats. */
export function runtimeMajors() {
  const engines = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines?.node ?? "";
  const floor = /^>=\s*(\d+)/.exec(engines)?.[1];
  if (!floor) throw new Error(`package.json engines.node must be ">=<major>", got "${engines}"`);
  return [...new Set([Number(floor), dockerfileNodeMajor()])];
}

const dockerfileText = () => readFileSync(join(root, "Dockerfile"), "utf8");

/** The Node.js major of the Dockerfile's runtime stage (its NODE_VERSION build argument). */
export function dockerfileNodeMajor() {
  const dockerfile = dockerfileText();
  const arg = /^ARG\s+NODE_VERSION=(\d+)/m.exec(dockerfile)?.[1];
  if (!arg) throw new Error("Dockerfile: no ARG NODE_VERSION=<major>");
  if (!/^FROM\s+node:\$\{NODE_VERSION\}\S*\s+AS\s+runtime$/im.test(dockerfile))
    throw new Error("Dockerfile: the runtime stage must be FROM node:$NODE_VERSION-... AS runtime");
  return Number(arg);
}

/** The environment the Dockerfile's runtime stage sets (its ENV lines, `KEY=value` pairs). */
export function dockerfileEnv() {
  const dockerfile = dockerfileText();
  const runtime = dockerfile.slice(dockerfile.search(/^FROM\s.*\sAS\s+runtime$/im));
  const env = {};
  for (const [, pairs] of runtime.matchAll(/^ENV\s+(.+)$/gm)) {
    for (const [, key, value] of pairs.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
  }
  return env;
}

/** The options the image gives node before its script (the runtime stage's ENTRYPOINT, an exec form). */
export function dockerfileNodeFlags() {
  const dockerfile = dockerfileText();
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error("Dockerfile: no ENTRYPOINT in exec form");
  const [command, ...args] = JSON.parse(entrypoint);
  const script = args.indexOf("dist/main.js");
  if (command !== "node" || script < 0)
    throw new Error('Dockerfile: the ENTRYPOINT must be ["node", ..., "dist/main.js"]');
  return args.slice(0, script);
}

/**
 * What a runtime's test run adds to the environment: for the image's major, the image's environment and
 * its ENTRYPOINT's node options (in NODE_OPTIONS, so the daemons and workers the tests start get them too),
 * since what users run is that runtime under that environment; nothing for the others.
 */
export function runtimeEnv(major, base = process.env) {
  if (major !== dockerfileNodeMajor()) return {};
  const options = [base.NODE_OPTIONS, ...dockerfileNodeFlags()].filter(Boolean).join(" ");
  return { ...dockerfileEnv(), NODE_OPTIONS: options };
}

/** A node binary of this major: the running one if it matches, else one installed into .runtimes/. */
export function nodeBinary(major) {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = join(root, ".runtimes", `node-${major}`);
  const bin = join(prefix, "node_modules", pkg, "bin", "node");
  if (!existsSync(bin)) {
    console.error(`test-matrix: installing Node.js ${major} (${pkg}@${major}) into ${prefix}`);
    mkdirSync(prefix, { recursive: true });
    execFileSync(
      "npm",
      ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", `${pkg}@${major}`],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
  }
  const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${bin} is ${version}, not Node.js ${major}`);
  return bin;
}

function runSuite(major, vitestArgs) {
  const node = nodeBinary(major);
  const report = join(root, ".tmp", `vitest-node${major}.json`);
  mkdirSync(dirname(report), { recursive: true });
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  console.log(`\n=== test-matrix: Node.js ${version} (${node}) ===\n`);
  const result = spawnSync(
    node,
    [
      join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...vitestArgs,
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        ...runtimeEnv(major),
        // Whatever the tests start with a plain `node` runs on the runtime under test too.
        PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
        PROMSTATUS_TEST_NODE_MAJORS: runtimeMajors().join(","),
      },
    },
  );
  let passed = 0;
  let failed = 0;
  let failures = [];
  try {
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed = json.numPassedTests;
    // A test file that failed to load has no failed test of its own: count it as one failure.
    const brokenFiles = json.testResults.filter(
      (file) => file.status === "failed" && !file.assertionResults.some((a) => a.status === "failed"),
    ).length;
    failed = json.numFailedTests + brokenFiles;
    failures = failedTests(json);
  } catch {
    failed = 1; // no report: the run itself broke
  }
  const ok = result.status === 0 && failed === 0 && passed > 0;
  return { major, version, passed, failed: ok ? failed : Math.max(failed, 1), ok, failures };
}

/** Which tests failed and the first line of why: the summary is what a CI log's tail shows. */
export function failedTests(json) {
  const names = [];
  for (const file of json.testResults) {
    const where = relative(root, file.name);
    const failedHere = file.assertionResults.filter((a) => a.status === "failed");
    if (file.status === "failed" && failedHere.length === 0)
      names.push(`${where}: ${firstLine(file.message ?? "did not load")}`);
    for (const a of failedHere) names.push(`${where} > ${a.fullName}: ${firstLine(a.failureMessages?.[0] ?? "")}`);
  }
  return names;
}

function firstLine(text) {
  const line =
    String(text)
      .split("\n")
      .find((l) => l.trim() !== "") ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

function main() {
  const wanted = process.env.PROMSTATUS_TEST_RUNTIMES;
  const majors = wanted ? wanted.split(",").map(Number) : runtimeMajors();
  const results = majors.map((major) => runSuite(major, process.argv.slice(2)));
  console.log("\n=== test-matrix summary ===");
  for (const r of results) {
    console.log(`Node.js ${r.version}: ${r.passed} passed, ${r.failed} failed${r.ok ? "" : "  <-- FAILED"}`);
    for (const name of r.failures) console.log(`  failed: ${name}`);
  }
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
