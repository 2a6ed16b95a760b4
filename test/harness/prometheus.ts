import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { findBinaries } from "./binaries.js";
import type { GetOptions } from "./http-get.js";
import { freePort, type Managed, startProcess, waitForHttp } from "./processes.js";

export interface ScrapeJob {
  job_name: string;
  targets: string[];
  scrape_interval?: string;
  honor_labels?: boolean;
  metrics_path?: string;
  scheme?: "http" | "https";
  tls_config?: Record<string, unknown>;
  basic_auth?: { username: string; password: string };
  relabel_configs?: Record<string, unknown>[];
  /** Targets read from files (file_sd_configs), on top of `targets`. */
  file_sd_configs?: { files: string[]; refresh_interval?: string }[];
}

export interface PrometheusOptions {
  /** --web.config.file: TLS and basic auth in front of the API. */
  webConfigFile?: string;
  /** How the harness itself reaches a secured server to see it is ready. */
  readyCheck?: GetOptions;
  /** Runs in agent mode (2.42: --enable-feature=agent): scrapes, but has no TSDB to report on. */
  agent?: boolean;
  /** Scrape itself as job "prometheus" (default true). */
  selfScrape?: boolean;
  /** Rule files to load (evaluated every second). */
  ruleFiles?: string[];
}

export interface RealPrometheus {
  url: string;
  address: string;
  process: Managed;
  /** Rewrites the config with these jobs (plus the self-scrape) and reloads it. */
  setJobs(jobs: ScrapeJob[]): Promise<void>;
  stop(): Promise<void>;
}

function configFor(address: string, jobs: ScrapeJob[], options: PrometheusOptions): string {
  // Prometheus's own scrape_config keys: pass the job through, targets as a static config.
  const scrape = ({ targets, ...job }: ScrapeJob) => ({ ...job, static_configs: [{ targets }] });
  const self = options.selfScrape === false ? [] : [scrape({ job_name: "prometheus", targets: [address] })];
  return stringify({
    global: { scrape_interval: "1s", scrape_timeout: "900ms", evaluation_interval: "1s" },
    ...(options.ruleFiles ? { rule_files: options.ruleFiles } : {}),
    scrape_configs: [...self, ...jobs.map(scrape)],
  });
}

/** Starts Debian's (or the named) Prometheus on 127.0.0.1, scraping itself every second plus `jobs`. */
export async function startPrometheus(
  dir: string,
  jobs: ScrapeJob[],
  options: PrometheusOptions = {},
): Promise<RealPrometheus> {
  const { prometheus } = findBinaries();
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const url = `${options.webConfigFile ? "https" : "http"}://${address}`;
  const configFile = join(dir, "prometheus.yml");
  writeFileSync(configFile, configFor(address, jobs, options));
  const process = startProcess(
    prometheus,
    [
      `--config.file=${configFile}`,
      ...(options.agent
        ? ["--enable-feature=agent", `--storage.agent.path=${join(dir, "prometheus-agent-data")}`]
        : [`--storage.tsdb.path=${join(dir, "prometheus-data")}`]),
      `--web.listen-address=${address}`,
      "--web.enable-lifecycle",
      ...(options.webConfigFile ? [`--web.config.file=${options.webConfigFile}`] : []),
    ],
    join(dir, "prometheus.log"),
  );
  await waitForHttp(`${url}/-/ready`, process, 30_000, options.readyCheck);
  return {
    url,
    address,
    process,
    async setJobs(next) {
      writeFileSync(configFile, configFor(address, next, options));
      const res = await fetch(`${url}/-/reload`, { method: "POST" });
      if (!res.ok) throw new Error(`Prometheus reload failed: ${res.status} ${await res.text()}`);
    },
    async stop() {
      await process.stop(5000);
    },
  };
}
