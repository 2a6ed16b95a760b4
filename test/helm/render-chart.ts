import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { tempDir } from "../harness/processes.js";

// The chart rendered with Go's text/template and sprig (test/helm/render, a stand-in for
// `helm template`, whose binary cannot be installed here).

export const root = fileURLToPath(new URL("../../", import.meta.url));
export const chart = join(root, "helm/prometheus-status-exporter");

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

/** The renderer, built once per test file; `remove` deletes it and every values file written. */
export function chartRenderer() {
  const dir = tempDir("promstatus-helm");
  const renderer = join(dir.path, "render");
  execFileSync("go", ["build", "-o", renderer, "."], {
    cwd: join(root, "test/helm/render"),
    env: { ...process.env, GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOCACHE: join(dir.path, "gocache") },
    stdio: "pipe",
  });
  let written = 0;
  /** Renders the chart as release `promstatus` in namespace `monitoring`; values files or objects, in order. */
  function render(...values: (string | object)[]): Manifest[] {
    const files = values.map((v) => {
      if (typeof v === "string") return v;
      const file = join(dir.path, `values-${written++}.yaml`);
      writeFileSync(file, stringify(v));
      return file;
    });
    const out = execFileSync(renderer, [chart, "promstatus", "monitoring", ...files], {
      encoding: "utf8",
      stdio: "pipe",
    });
    return parseAllDocuments(out)
      .map((d) => d.toJS() as Manifest)
      .filter(Boolean);
  }
  return { render, remove: () => dir.remove() };
}
