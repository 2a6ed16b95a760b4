import { findBinaries } from "./binaries.js";

// Fail the whole run, loudly, when the real upstreams are missing: never skip those tests.
export default function setup(): void {
  findBinaries();
}
