// `npm run demo`: a real Prometheus and a two-node Alertmanager cluster on 127.0.0.1 (the same
// harness the integration tests use), the built exporter polling them and Prometheus scraping the
// exporter. Prints the URLs to open; Ctrl-C stops everything it started.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemonReady } from "../test/harness/daemon.js";
import { freePort } from "../test/harness/processes.js";
import { startStack } from "../test/harness/stack.js";

async function main(): Promise<void> {
  const exporterAddress = `127.0.0.1:${await freePort()}`;
  console.log("starting Prometheus and a two-node Alertmanager cluster on 127.0.0.1 ...");
  const stack = await startStack({
    prefix: "promstatus-demo",
    extraJobs: [{ job_name: "promstatus", targets: [exporterAddress], honor_labels: true }],
  });
  const configFile = join(stack.dir, "exporter.yml");
  const sources = [
    `  - {name: prometheus, kind: prometheus, url: "${stack.prometheus.url}", tsdb: {limit: 10}}`,
    ...stack.alertmanagers.members.map((m, i) => `  - {name: alertmanager-${i}, kind: alertmanager, url: "${m.url}"}`),
  ];
  writeFileSync(configFile, `global: {schedule: "*/5 * * * * *", timeout: 4s}\nsources:\n${sources.join("\n")}\n`);
  const daemon = await startDaemonReady(
    stack.dir,
    [`--config.file=${configFile}`, `--web.listen-address=${exporterAddress}`],
    exporterAddress,
  );

  const query = encodeURIComponent("promstatus_targets");
  console.log(`
The exporter is polling them every 5 s.
  exporter metrics     http://${exporterAddress}/metrics
  exporter home        http://${exporterAddress}/
  Prometheus           ${stack.prometheus.url}/graph?g0.expr=${query}&g0.tab=1
  Prometheus targets   ${stack.prometheus.url}/targets   (one target, "dead", is down on purpose)
${stack.alertmanagers.members.map((m, i) => `  Alertmanager ${i}       ${m.url}/#/status`).join("\n")}
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
