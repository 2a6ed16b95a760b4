// Installs the locked dependencies when they are missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone. Plain Node, no dependencies of its own.
import { execSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

const marker = "node_modules/.package-lock.json";
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync("package-lock.json").mtimeMs;
if (stale) {
  console.error("bootstrap: installing dependencies with npm ci");
  execSync("npm ci --no-audit --no-fund", { stdio: "inherit" });
}
