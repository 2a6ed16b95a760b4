import { join } from "node:path";
import { type Logger, pino } from "pino";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { Exporter } from "../../src/exporter.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { freePort } from "./processes.js";

export interface InProcessExporter {
  exporter: Exporter;
  /** host:port it listens on (127.0.0.1). */
  address: string;
  /** http://host:port */
  base: string;
}

/** Starts the exporter in this process on a free loopback port, with the config text given. */
export async function startExporter(
  dir: string,
  configText: string,
  { flags = [], log = pino({ level: "silent" }) }: { flags?: string[]; log?: Logger } = {},
): Promise<InProcessExporter> {
  const config = parseConfig(configText, join(dir, "exporter.yml"));
  const address = `127.0.0.1:${await freePort()}`;
  const exporter = await Exporter.start(
    { config, webConfig: NO_WEB_CONFIG },
    parseFlags([`--web.listen-address=${address}`, ...flags]),
    log,
  );
  return { exporter, address, base: `http://${address}` };
}
