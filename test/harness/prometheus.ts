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
  /** At most the interval (a shorter scrape_interval than the global 1s needs one). */
  scrape_timeout?: string;
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
  /** global.external_labels, e.g. {replica: "a"} for one half of an HA pair. */
  externalLabels?: Record<string, string>;
  /** More command-line flags, after the harness's own. */
  flags?: string[];
  /**
   * Runs with the working directory `dir` and names the config file and TSDB path relative to it, as
   * the pods of one StatefulSet do: two replicas then differ in no flag but the listen address, and a
   * relative rule file name reads the same in both configs (Prometheus joins it with the config's dir).
   */
  relativePaths?: boolean;
}

export interface RealPrometheus {
  url: string;
  address: string;
  process: Managed;
  /** Rewrites the config with these jobs (plus the self-scrape) and reloads it. */
  setJobs(jobs: ScrapeJob[]): Promise<void>;
  stop(): Promise<void>;
  /** The TSDB directory (its WAL is `wal/` in it). */
  dataDir: string;
  /**
   * Stops the server and starts it again on the same address, directory and config, with `flags`
   * (default: the flags it was started with) instead of `options.flags`. Resolves once it answers
   * /-/ready, or at once with `waitReady: false` (to watch it start: a WAL replay, say).
   */
  restart(next?: { flags?: string[]; waitReady?: boolean }): Promise<void>;
}

function configFor(address: string, jobs: ScrapeJob[], options: PrometheusOptions): string {
  // Prometheus's own scrape_config keys: pass the job through, targets as a static config.
  const scrape = ({ targets, ...job }: ScrapeJob) => ({ ...job, static_configs: [{ targets }] });
  const self = options.selfScrape === false ? [] : [scrape({ job_name: "prometheus", targets: [address] })];
  return stringify({
    global: {
      scrape_interval: "1s",
      scrape_timeout: "900ms",
      evaluation_interval: "1s",
      ...(options.externalLabels ? { external_labels: options.externalLabels } : {}),
    },
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
  const inDir = (name: string) => (options.relativePaths ? name : join(dir, name));
  const dataDir = join(dir, options.agent ? "prometheus-agent-data" : "prometheus-data");
  const launch = (flags: string[]) =>
    startProcess(
      prometheus,
      [
        `--config.file=${inDir("prometheus.yml")}`,
        ...(options.agent
          ? ["--enable-feature=agent", `--storage.agent.path=${inDir("prometheus-agent-data")}`]
          : [`--storage.tsdb.path=${inDir("prometheus-data")}`]),
        `--web.listen-address=${address}`,
        "--web.enable-lifecycle",
        ...(options.webConfigFile ? [`--web.config.file=${options.webConfigFile}`] : []),
        ...flags,
      ],
      join(dir, "prometheus.log"),
      undefined,
      options.relativePaths ? dir : undefined,
    );
  let process = launch(options.flags ?? []);
  await waitForHttp(`${url}/-/ready`, process, 30_000, options.readyCheck);
  return {
    url,
    address,
    get process() {
      return process;
    },
    dataDir,
    async setJobs(next) {
      writeFileSync(configFile, configFor(address, next, options));
      const res = await fetch(`${url}/-/reload`, { method: "POST" });
      if (!res.ok) throw new Error(`Prometheus reload failed: ${res.status} ${await res.text()}`);
    },
    async stop() {
      await process.stop(5000);
    },
    async restart(next = {}) {
      await process.stop(5000);
      process = launch(next.flags ?? options.flags ?? []);
      if (next.waitReady !== false) await waitForHttp(`${url}/-/ready`, process, 30_000, options.readyCheck);
    },
  };
}
