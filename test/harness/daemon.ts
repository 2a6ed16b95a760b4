import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Managed, startProcess, waitForHttp } from "./processes.js";

export const DAEMON = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** Starts the built exporter as a child process, as a user runs it. */
export function startDaemon(dir: string, args: string[], name = "exporter", env?: NodeJS.ProcessEnv): Managed {
  return startProcess(process.execPath, [DAEMON, ...args], join(dir, `${name}.log`), env);
}

export async function startDaemonReady(dir: string, args: string[], address: string): Promise<Managed> {
  const daemon = startDaemon(dir, args);
  await waitForHttp(`http://${address}/-/healthy`, daemon);
  return daemon;
}
