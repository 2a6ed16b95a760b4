import type { Server as HttpServer } from "node:http";
import type { AddressInfo, Server } from "node:net";

/** Starts `server` listening on 127.0.0.1 at a port the system picks; that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes `server`, and with it the connections an HTTP server still keeps open. */
export async function closeServer(server: Server | HttpServer): Promise<void> {
  if ("closeAllConnections" in server) server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
