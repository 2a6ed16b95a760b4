import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "./alertmanager.js";
import { freePort, tempDir, waitFor } from "./processes.js";
import { type RealPrometheus, type ScrapeJob, startPrometheus } from "./prometheus.js";

export interface Stack {
  dir: string;
  prometheus: RealPrometheus;
  alertmanagers: RealAlertmanagerCluster;
  /** The jobs Prometheus scrapes besides itself. */
  jobs: ScrapeJob[];
  deadTarget: string;
  stop(): Promise<void>;
}

interface TargetsAnswer {
  data: { activeTargets: { health: string; scrapePool: string }[] };
}

/**
 * A real Prometheus scraping itself, a two-node Alertmanager cluster and a dead target, all on
 * 127.0.0.1. Resolves once the cluster has formed and every target has been scraped once.
 */
export async function startStack(options: { prefix: string; extraJobs?: ScrapeJob[] }): Promise<Stack> {
  const dir = tempDir(options.prefix);
  const alertmanagers = await startAlertmanagerCluster(dir.path, 2);
  const deadTarget = `127.0.0.1:${await freePort()}`;
  const jobs: ScrapeJob[] = [
    { job_name: "alertmanager", targets: alertmanagers.members.map((m) => m.address) },
    { job_name: "dead", targets: [deadTarget] },
    ...(options.extraJobs ?? []),
  ];
  let prometheus: RealPrometheus;
  try {
    prometheus = await startPrometheus(dir.path, jobs);
  } catch (err) {
    await alertmanagers.stop();
    dir.remove();
    throw err;
  }
  const stack: Stack = {
    dir: dir.path,
    prometheus,
    alertmanagers,
    jobs,
    deadTarget,
    async stop() {
      await Promise.all([prometheus.stop(), alertmanagers.stop()]);
      dir.remove();
    },
  };
  try {
    await waitFor("every target scraped and the cluster formed", async () => {
      const targets = (await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as TargetsAnswer;
      const active = targets.data.activeTargets;
      if (active.length < 1 + jobs.reduce((n, j) => n + j.targets.length, 0)) return undefined;
      if (active.some((t) => t.health === "unknown")) return undefined;
      for (const m of alertmanagers.members) {
        const status = (await (await fetch(`${m.url}/api/v2/status`)).json()) as { cluster: { peers: unknown[] } };
        if (status.cluster.peers.length !== alertmanagers.members.length) return undefined;
      }
      return true;
    });
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}
