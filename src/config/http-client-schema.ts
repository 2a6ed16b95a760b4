import { z } from "zod";
import { typeError } from "./messages.js";

// How a source is reached: the keys and meaning of Prometheus's http_config, so operators can paste.

const nonEmpty = z.string().min(1, { error: "must not be empty" });

const basicAuth = z
  .strictObject({
    username: z.string({ error: typeError("must be a string") }),
    password: z.string().optional(),
    password_file: nonEmpty.optional(),
  })
  .refine((b) => !(b.password !== undefined && b.password_file !== undefined), {
    error: "at most one of password and password_file may be set",
  });

const authorization = z
  .strictObject({
    type: nonEmpty.optional(),
    credentials: z.string().optional(),
    credentials_file: nonEmpty.optional(),
  })
  .refine((a) => !(a.credentials !== undefined && a.credentials_file !== undefined), {
    error: "at most one of credentials and credentials_file may be set",
  })
  .refine((a) => a.type?.toLowerCase() !== "basic", { error: 'type "Basic" is not allowed; use basic_auth' });

const tlsConfig = z
  .strictObject({
    ca_file: nonEmpty.optional(),
    cert_file: nonEmpty.optional(),
    key_file: nonEmpty.optional(),
    server_name: nonEmpty.optional(),
    insecure_skip_verify: z.boolean().optional(),
  })
  .refine((t) => (t.cert_file === undefined) === (t.key_file === undefined), {
    error: "cert_file and key_file must be set together",
  });

// Headers the client sets itself or that would bypass the auth settings.
const RESERVED_HEADERS = new Set([
  "authorization",
  "host",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "connection",
  "transfer-encoding",
  "proxy-authorization",
]);

const headers = z.record(
  z.string().superRefine((name, ctx) => {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      ctx.addIssue({ code: "custom", message: `invalid header name "${name}"` });
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({
        code: "custom",
        message: `header "${name}" cannot be set here${name.toLowerCase() === "authorization" ? "; use authorization or basic_auth" : ""}`,
      });
    }
  }),
  z.string({ error: "header values must be strings" }),
);

const proxyUrl = z.string().superRefine((text, ctx) => {
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: "proxy URL scheme must be http or https" });
    }
  } catch {
    ctx.addIssue({ code: "custom", message: "invalid proxy URL" });
  }
});

export const httpClientFields = {
  basic_auth: basicAuth.optional(),
  authorization: authorization.optional(),
  headers: headers.optional(),
  tls_config: tlsConfig.optional(),
  proxy_url: proxyUrl.optional(),
  follow_redirects: z.boolean({ error: typeError("must be true or false") }).optional(),
  // Whether answers are asked for gzipped: on loopback (a sidecar) compressing costs both processes CPU
  // and saves nothing; across a network it saves most of the bytes.
  compression: z.enum(["auto", "gzip", "none"], { error: 'must be "auto", "gzip" or "none"' }).optional(),
};
