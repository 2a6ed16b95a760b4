import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { findBinaries } from "./binaries.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

export default function setup(): void {
  // Fail the whole run, loudly, when the real upstreams are missing: never skip those tests.
  findBinaries();
  // The end-to-end tests run the built daemon as a user would: build it from the current sources.
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.json`], {
    stdio: "inherit",
  });
}
