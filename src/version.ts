import { readFileSync } from "node:fs";

// Read once from package.json (one level above both src/ and dist/), so the version has one home.
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

export const VERSION: string = pkg.version;
