import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeCerts } from "../harness/certs.js";
import { startDaemon } from "../harness/daemon.js";
import { freePort, type Managed, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { writeWebConfig } from "../harness/web-config.js";

// A SIGHUP during start-up must not kill the exporter (Node's default for SIGHUP is to exit). To hold
// start-up open at a known point, the web config's certificate is a FIFO: loading blocks on it until
// the test writes the certificate in.

const dir = tempDir("promstatus-early-sighup");
let daemon: Managed | undefined;
afterAll(async () => {
  await daemon?.stop(3000);
  dir.remove();
});

describe("SIGHUP during start-up", () => {
  it("is survived, and reloads once the exporter runs", async () => {
    const certs = makeCerts(dir.path);
    const fifo = join(dir.path, "cert.fifo");
    execFileSync("mkfifo", [fifo]);
    const webConfigFile = writeWebConfig(dir.path, "web.yml", {
      tls: { certFile: fifo, keyFile: certs.serverKeyFile },
    });
    const configFile = join(dir.path, "exporter.yml");
    writeFileSync(
      configFile,
      `sources:\n  - {name: am, kind: alertmanager, url: "http://127.0.0.1:${await freePort()}"}\n`,
    );
    const address = `127.0.0.1:${await freePort()}`;
    daemon = startDaemon(dir.path, [
      `--config.file=${configFile}`,
      `--web.listen-address=${address}`,
      `--web.config.file=${webConfigFile}`,
    ]);
    const log = () => readFileSync(daemon?.logFile ?? "", "utf8");
    await waitFor("start-up under way", async () =>
      log().includes("starting prometheus-status-exporter") ? true : undefined,
    );
    daemon.child.kill("SIGHUP");
    await new Promise((r) => setTimeout(r, 500));
    expect(daemon.child.exitCode, log()).toBeNull();
    expect(daemon.child.signalCode, log()).toBeNull();
    const cert = readFileSync(certs.serverCertFile);
    await writeFile(fifo, cert); // start-up goes on
    // Only once start-up has read its certificate: a second writer opening the FIFO while start-up still
    // reads would have both copies read at once, leaving the reload waiting for a writer forever.
    await waitFor("the remembered SIGHUP acted on", async () =>
      log().includes("SIGHUP: reloading the config") ? true : undefined,
    );
    await writeFile(fifo, cert); // the reload reads the web config again
    await waitForHttp(`https://${address}/-/healthy`, daemon, 30_000, { ca: certs.ca });
    expect(log()).toContain("config reloaded");
  });
});
