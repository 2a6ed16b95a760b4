import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, type Managed, startProcess, tempDir, waitForHttp } from "../harness/processes.js";

// No Docker engine here: the Dockerfile's runtime stage is carried out step by step in a temporary
// folder instead (its COPY and RUN lines, then its ENTRYPOINT and CMD), so a runtime dependency
// listed as a dev dependency, or a file the stage forgets, fails this test.

const root = fileURLToPath(new URL("../../", import.meta.url));
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");

interface Instruction {
  op: string;
  args: string;
}

function stage(name: string): Instruction[] {
  const lines = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim());
  const out: Instruction[] = [];
  let inStage = false;
  for (const line of lines) {
    if (!line || line.startsWith("#")) continue;
    const [op = "", ...rest] = line.split(/\s+/);
    if (op.toUpperCase() === "FROM") inStage = new RegExp(`\\sAS\\s+${name}$`, "i").test(line);
    else if (inStage) out.push({ op: op.toUpperCase(), args: rest.join(" ") });
  }
  return out;
}

/** .dockerignore is an allowlist: is this context path let in? */
function inContext(path: string): boolean {
  const rules = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .filter((l) => l && !l.startsWith("#"));
  let included = true;
  for (const rule of rules) {
    if (rule === "*") included = false;
    else if (rule.startsWith("!") && (path === rule.slice(1).replace(/\/$/, "") || path.startsWith(rule.slice(1))))
      included = true;
  }
  return included;
}

const dir = tempDir("promstatus-image");
let daemon: Managed | undefined;
afterAll(async () => {
  await daemon?.stop(3000);
  dir.remove();
});

describe("the image's runtime stage", () => {
  const steps = stage("runtime");
  const workdir = steps.find((s) => s.op === "WORKDIR")?.args ?? "/app";
  const local = (path: string) => join(dir.path, path.startsWith(workdir) ? path.slice(workdir.length) : path);

  it("is built on a current Node LTS, runs unprivileged and exposes the default port", () => {
    const version = /ARG NODE_VERSION=(\d+)/.exec(dockerfile)?.[1];
    expect(Number(version)).toBeGreaterThanOrEqual(22);
    expect(Number(version) % 2).toBe(0); // even majors are the LTS lines
    expect(steps.find((s) => s.op === "USER")?.args).toBe("node");
    // Large buffers go back to the system when freed, not into glibc's arenas (docs/benchmark.md).
    expect(steps.some((s) => s.op === "ENV" && s.args === "MALLOC_MMAP_THRESHOLD_=131072")).toBe(true);
    // One arena for every thread, so a poll's small buffers freed by one thread are reused by the others.
    expect(steps.some((s) => s.op === "ENV" && s.args === "MALLOC_ARENA_MAX=1")).toBe(true);
    expect(steps.find((s) => s.op === "EXPOSE")?.args).toBe("9816");
    expect(steps.some((s) => s.op === "LABEL" && s.args.includes("org.opencontainers.image.title"))).toBe(true);
  });

  it("installs production dependencies from the lockfile and starts the daemon from its own output", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const step of steps) {
      if (step.op === "ENV") {
        const [key, value] = step.args.split("=");
        env[key as string] = value;
      } else if (step.op === "COPY") {
        const parts = step.args.split(/\s+/);
        const from = parts.find((p) => p.startsWith("--from="))?.slice("--from=".length);
        const [dest, ...sources] = parts.filter((p) => !p.startsWith("--")).reverse();
        for (const source of sources.reverse()) {
          // The build stage's output is this repository's build (made by the test set-up).
          const origin = from === "build" ? join(root, source.replace(`${workdir}/`, "")) : join(root, source);
          if (!from) expect(inContext(source), `${source} is excluded by .dockerignore`).toBe(true);
          const target = local(dest as string);
          const into = dest?.endsWith("/") || dest === "./" ? join(target, source.split("/").pop() as string) : target;
          cpSync(origin, into, { recursive: true });
        }
      } else if (step.op === "RUN") {
        execFileSync("sh", ["-c", step.args], { cwd: dir.path, env, stdio: "pipe", timeout: 120_000 });
      }
    }
    // Nothing of the development tool chain made it in.
    for (const dev of ["typescript", "vitest", "@biomejs/biome", "tsx"]) {
      expect(existsSync(join(dir.path, "node_modules", dev)), dev).toBe(false);
    }
    expect(existsSync(join(dir.path, "src"))).toBe(false);

    const json = (op: string) => JSON.parse(steps.find((s) => s.op === op)?.args ?? "[]") as string[];
    const [command, ...args] = [...json("ENTRYPOINT"), ...json("CMD")].map((a) =>
      a.replace(`${workdir}/`, `${dir.path}/`),
    );
    const port = await freePort();
    expect(command).toBe("node");
    // Run from the stage's folder: it resolves its modules from its own node_modules, not the repository's.
    daemon = startProcess(
      process.execPath,
      [...args, `--web.listen-address=127.0.0.1:${port}`],
      join(dir.path, "daemon.log"),
      env,
      dir.path,
    );
    await waitForHttp(`http://127.0.0.1:${port}/-/healthy`, daemon);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^promstatus_exporter_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+/m);
    expect(await daemon.stop(5000)).toBe(0);
  }, 180_000);
});
