// `npm run demo`: a real Prometheus and a two-node Alertmanager cluster on 127.0.0.1 (the same
// harness the integration tests use), the built exporter polling them (the Alertmanagers as one
// replica group) and Prometheus scraping the exporter. Prints what to look at; Ctrl-C stops everything
// it started.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemonReady } from "../test/harness/daemon.js";
import { freePort } from "../test/harness/processes.js";
import { startStack } from "../test/harness/stack.js";

const GROUP = "alertmanagers";

async function main(): Promise<void> {
  const exporterAddress = `127.0.0.1:${await freePort()}`;
  console.log("starting Prometheus and a two-node Alertmanager cluster on 127.0.0.1 ...");
  const stack = await startStack({
    prefix: "promstatus-demo",
    extraJobs: [{ job_name: "promstatus", targets: [exporterAddress], honor_labels: true }],
  });
  const configFile = join(stack.dir, "exporter.yml");
  const members = stack.alertmanagers.members;
  const sources = [
    `  - {name: prometheus, kind: prometheus, url: "${stack.prometheus.url}", tsdb: {limit: 10}}`,
    ...members.map((m, i) => `  - {name: alertmanager-${i}, kind: alertmanager, group: ${GROUP}, url: "${m.url}"}`),
  ];
  writeFileSync(configFile, `global: {interval: 5s, timeout: 4s}\nsources:\n${sources.join("\n")}\n`);
  const daemon = await startDaemonReady(
    stack.dir,
    [`--config.file=${configFile}`, `--web.listen-address=${exporterAddress}`],
    exporterAddress,
  );

  const exporter = `http://${exporterAddress}`;
  const graph = (expr: string) => `${stack.prometheus.url}/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=1`;
  const probe = (module: string, target: string, debug = false) =>
    `${exporter}/probe?module=${module}&target=${target}${debug ? "&debug=true" : ""}`;
  console.log(`
The exporter polls them every 5 s; the two Alertmanagers are the replica group "${GROUP}".
  status page          ${exporter}/
  metrics              ${exporter}/metrics
  probe                ${probe("prometheus", stack.prometheus.address)}
  probe, explained     ${probe("alertmanager", members[0]?.url ?? "", true)}
  targets in PromQL    ${graph("promstatus_targets")}
  the group in PromQL  ${graph(`{__name__=~"promstatus_group_.+", group="${GROUP}"}`)}
  Prometheus targets   ${stack.prometheus.url}/targets   (one target, "dead", is down on purpose)
${members.map((m, i) => `  Alertmanager ${i}       ${m.url}/#/status`).join("\n")}
Config: ${configFile}   Logs: ${stack.dir}/*.log
Press Ctrl-C to stop everything.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nstopping ...");
    await daemon.stop(5000);
    await stack.stop();
    console.log("stopped.");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  void daemon.exited.then((code) => {
    if (!stopping) {
      console.error(`the exporter exited unexpectedly (code ${code}); see ${daemon.logFile}`);
      void stop();
    }
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
