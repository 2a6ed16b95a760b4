import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { Exporter } from "../../src/exporter.js";
import { PACK_MIN_BYTES } from "../../src/exposition/pack.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { samplesOf } from "../helpers/exposition.js";

// A real Prometheus (Debian's 2.42) scrapes the exporter while the exporter polls it: its targets are
// enough that every per-target family is packed (compressed in pieces by assembly/deflate-lines.ts
// and served gzipped as those pieces), so what Prometheus ingests is what Go's compress/gzip and
// compress/flate made of the exporter's own deflate data.

const TARGETS = 1500;
const dir = tempDir("promstatus-scraped");
let prometheus: RealPrometheus;
let exporter: Exporter;
let exporterAddress: string;

/** A query's single value, or undefined while it has none. */
async function queryValue(expr: string): Promise<number | undefined> {
  const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const answer = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  const [first] = answer.data.result;
  return first ? Number(first.value[1]) : undefined;
}

beforeAll(async () => {
  // Targets nobody scrapes before the test ends (an hour's interval): each its own instance.
  const groups = Array.from({ length: TARGETS }, (_, i) => ({
    targets: ["127.0.0.1:9"],
    labels: { instance: `node-${i}.example:9100` },
  }));
  writeFileSync(join(dir.path, "fleet.json"), JSON.stringify(groups));
  const fleet = {
    job_name: "fleet",
    targets: [],
    scrape_interval: "1h",
    scrape_timeout: "10s",
    file_sd_configs: [{ files: [join(dir.path, "fleet.json")] }],
  };
  prometheus = await startPrometheus(dir.path, [fleet], { selfScrape: false });
  await waitFor("the fleet discovered", async () => {
    const res = await fetch(`${prometheus.url}/api/v1/targets?state=active`);
    const answer = (await res.json()) as { data: { activeTargets: unknown[] } };
    return answer.data.activeTargets.length === TARGETS ? true : undefined;
  });
  const config = parseConfig(
    `global: {schedule: "* * * * * *", timeout: 5s}
sources:
  - {name: fleet, kind: prometheus, url: "${prometheus.url}", tsdb: {enabled: false}}
`,
    "scraped.yml",
  );
  const flags = parseFlags(["--web.listen-address=127.0.0.1:0"]);
  exporter = await Exporter.start({ config, webConfig: NO_WEB_CONFIG }, flags, pino({ level: "silent" }));
  exporterAddress = `127.0.0.1:${(exporter.server.address() as AddressInfo).port}`;
  await prometheus.setJobs([fleet, { job_name: "exporter", targets: [exporterAddress], scrape_interval: "1s" }]);
}, 90_000);

afterAll(async () => {
  await exporter?.stop();
  await prometheus?.stop();
  dir.remove();
}, 30_000);

describe("a real Prometheus scraping the exporter's packed exposition", () => {
  it("ingests every target's series from the gzip the exporter compressed itself", async () => {
    // The fleet and the exporter itself, once the exporter has polled Prometheus since it was added.
    const series = TARGETS + 1;
    const plain = await waitFor("a poll that lists the exporter's own target", async () => {
      const text = await (await fetch(`http://${exporterAddress}/metrics`)).text();
      return samplesOf(text, "promstatus_target_scrape_interval_seconds").length === series ? text : undefined;
    });
    // Large enough to be packed: otherwise this would test zlib's plain pieces only.
    const familyBytes = plain
      .split("\n")
      .filter((line) => line.startsWith("promstatus_target_scrape_interval_seconds{"))
      .reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(familyBytes).toBeGreaterThan(PACK_MIN_BYTES);
    const ingested = await waitFor(
      "Prometheus to have scraped the exporter",
      async () => {
        const up = await queryValue('up{job="exporter"}');
        const count = await queryValue('count(promstatus_target_scrape_interval_seconds{job="exporter"})');
        return up === 1 && count === series ? count : undefined;
      },
      30_000,
    );
    expect(ingested).toBe(series);
    const gzipBody = await fetch(`http://${exporterAddress}/metrics`, { headers: { "accept-encoding": "gzip" } });
    expect(gzipBody.headers.get("content-encoding")).toBe("gzip");
    expect(await queryValue('scrape_samples_scraped{job="exporter"}')).toBeGreaterThan(2 * series);
  }, 60_000);
});
