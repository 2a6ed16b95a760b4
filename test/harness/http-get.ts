import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export interface GetOptions {
  /** CA certificate(s) to trust for https. */
  ca?: Buffer;
  /** Client certificate and key for https. */
  cert?: Buffer;
  key?: Buffer;
  /** `user:password` for basic auth. */
  auth?: string;
  method?: string;
  timeoutMs?: number;
}

export interface GetResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A small HTTP(S) client for the harness: custom CAs and client certificates, which fetch lacks. */
export function httpGet(url: string, options: GetOptions = {}): Promise<GetResult> {
  const request = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? "GET",
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        auth: options.auth,
        timeout: options.timeoutMs ?? 5000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
    req.end();
  });
}
