import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface UpstreamBinaries {
  prometheus: string;
  promtool: string;
  alertmanager: string;
}

const WANTED: { key: keyof UpstreamBinaries; env: string; names: string[] }[] = [
  { key: "prometheus", env: "PROMETHEUS_BIN", names: ["prometheus"] },
  { key: "promtool", env: "PROMTOOL_BIN", names: ["promtool"] },
  // Debian names it prometheus-alertmanager; upstream release tarballs name it alertmanager.
  { key: "alertmanager", env: "ALERTMANAGER_BIN", names: ["prometheus-alertmanager", "alertmanager"] },
];

export const INSTALL_HINT =
  "Install them (Debian/Ubuntu, as root):\n" +
  "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus prometheus-alertmanager openssl golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev chromium\n" +
  "or name the binaries with PROMETHEUS_BIN, PROMTOOL_BIN and ALERTMANAGER_BIN.";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Finds the real Prometheus, promtool and Alertmanager binaries, or throws saying how to get them. */
export function findBinaries(): UpstreamBinaries {
  const found: Partial<UpstreamBinaries> = {};
  const missing: string[] = [];
  for (const { key, env, names } of WANTED) {
    const fromEnv = process.env[env];
    const path = fromEnv ? (executable(fromEnv) ? fromEnv : undefined) : names.map(onPath).find(Boolean);
    if (path) found[key] = path;
    else missing.push(fromEnv ? `${env}=${fromEnv} (not executable)` : `${names.join(" or ")} (or ${env})`);
  }
  if (missing.length > 0) throw new Error(`missing upstream binaries: ${missing.join(", ")}\n${INSTALL_HINT}`);
  return found as UpstreamBinaries;
}
