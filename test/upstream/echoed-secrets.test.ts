import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpClientConfig } from "../../src/config/types.js";
import { fetchBody } from "../../src/upstream/client.js";
import { PollError } from "../../src/upstream/poll-error.js";

// An upstream may quote what it was sent in an error answer ("bad credentials: Bearer ..."); what the
// answer says reaches the log and the status page (upstreamText), so the exporter's secrets are taken
// out of it.

const server = createServer((request, response) => {
  response.writeHead(401, { "content-type": "text/plain" });
  response.end(`bad credentials: ${request.headers.authorization} (api key ${request.headers["x-api-key"]})`);
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const http = (more: Partial<HttpClientConfig>): HttpClientConfig => ({
  headers: {},
  tls: { insecureSkipVerify: false },
  followRedirects: true,
  compression: "none",
  ...more,
});

async function failure(target: string, config: HttpClientConfig): Promise<PollError> {
  const error = await fetchBody(target, { timeoutMs: 5000, maxBytes: 2 ** 20, http: config }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PollError);
  return error as PollError;
}

describe("an upstream quoting the credentials it was sent", () => {
  it("has a bearer token and a header value hidden in what it said", async () => {
    const error = await failure(
      url,
      http({ authorization: { type: "Bearer", credentials: "tok-3f9a7c" }, headers: { "X-Api-Key": "key-77d1e2" } }),
    );
    expect(error.upstreamText).toContain("bad credentials: xxxxx (api key xxxxx)");
    expect(error.upstreamText).not.toContain("tok-3f9a7c");
    expect(error.upstreamText).not.toContain("key-77d1e2");
  });

  it("has basic auth hidden, as sent and as its password", async () => {
    const error = await failure(url, http({ basicAuth: { username: "monitor", password: "pw-51c0" } }));
    expect(error.upstreamText).toContain("bad credentials: xxxxx");
    expect(error.upstreamText).not.toContain(Buffer.from("monitor:pw-51c0").toString("base64"));
  });

  it("has a password given in the URL hidden", async () => {
    const error = await failure(url.replace("http://", "http://monitor:pw-url-9e@"), http({}));
    expect(error.upstreamText).not.toContain(Buffer.from("monitor:pw-url-9e").toString("base64"));
    expect(error.upstreamText).toContain("xxxxx");
  });
});

describe("a short custom header value", () => {
  it("is not taken for a secret (a tenant number would garble every digit like it)", async () => {
    const error = await failure(url, http({ headers: { "X-Api-Key": "1" } }));
    expect(error.upstreamText).toContain("(api key 1)");
  });
});
