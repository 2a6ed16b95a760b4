import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { findBinaries } from "./binaries.js";
import type { GetOptions } from "./http-get.js";
import { freePort, type Managed, startProcess, waitForHttp } from "./processes.js";

export interface AlertmanagerMember {
  url: string;
  address: string;
  process: Managed;
}

export interface RealAlertmanagerCluster {
  members: AlertmanagerMember[];
  stop(): Promise<void>;
}

// A small but real routing tree; the webhook URL carries a token that Alertmanager 0.25 does not mask.
export const ALERTMANAGER_CONFIG = `route:
  receiver: default
  routes:
    - receiver: team-a
      matchers: ['team="a"']
      routes:
        - receiver: team-a-pager
          matchers: ['severity="critical"']
receivers:
  - name: default
  - name: team-a
    webhook_configs:
      - url: http://127.0.0.1:9/hook?token=harness-webhook-token
  - name: team-a-pager
inhibit_rules:
  - source_matchers: ['severity="critical"']
    target_matchers: ['severity="warning"']
    equal: [alertname]
`;

// Clustered Alertmanagers take about 10 s to leave the mesh on SIGTERM; do not wait that long.
const STOP_GRACE_MS = 2000;

/** Starts `size` Alertmanagers on 127.0.0.1 that form one gossip cluster. */
export async function startAlertmanagerCluster(
  dir: string,
  size: number,
  options: {
    webConfigFile?: string;
    readyCheck?: GetOptions;
    /** Gossip addresses member i joins; by default every other member's. */
    peers?: (i: number, gossip: readonly string[]) => string[];
    /** Config text of member i; by default ALERTMANAGER_CONFIG for all. */
    config?: (i: number) => string;
  } = {},
): Promise<RealAlertmanagerCluster> {
  const { alertmanager } = findBinaries();
  const web = await Promise.all(Array.from({ length: size }, freePort));
  const gossip = (await Promise.all(Array.from({ length: size }, freePort))).map((p) => `127.0.0.1:${p}`);
  const peersOf = options.peers ?? ((i, all) => all.filter((_, j) => j !== i));
  const members = web.map((port, i): AlertmanagerMember => {
    const address = `127.0.0.1:${port}`;
    const configFile = join(dir, `alertmanager-${i}.yml`);
    writeFileSync(configFile, options.config?.(i) ?? ALERTMANAGER_CONFIG);
    const peers = peersOf(i, gossip).map((p) => `--cluster.peer=${p}`);
    const process = startProcess(
      alertmanager,
      [
        `--config.file=${configFile}`,
        `--storage.path=${join(dir, `alertmanager-${i}`)}`,
        `--web.listen-address=${address}`,
        `--cluster.listen-address=${gossip[i]}`,
        // Without an explicit advertise address Alertmanager refuses loopback-only clustering.
        `--cluster.advertise-address=${gossip[i]}`,
        ...peers,
        ...(options.webConfigFile ? [`--web.config.file=${options.webConfigFile}`] : []),
      ],
      join(dir, `alertmanager-${i}.log`),
    );
    return { url: `${options.webConfigFile ? "https" : "http"}://${address}`, address, process };
  });
  const cluster = {
    members,
    async stop() {
      await Promise.all(members.map((m) => m.process.stop(STOP_GRACE_MS)));
    },
  };
  try {
    await Promise.all(members.map((m) => waitForHttp(`${m.url}/-/ready`, m.process, 30_000, options.readyCheck)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
