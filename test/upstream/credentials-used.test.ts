import { describe, expect, it } from "vitest";
import { credentialsUsed } from "../../src/upstream/credentials-used.js";
import { httpConfig as http } from "../helpers/config.js";

const URL_ = "http://127.0.0.1:9090/api/v1/targets";

describe("credentialsUsed", () => {
  it.each([
    [
      http({ basicAuth: { username: "monitor", password: "s3cret-A" } }),
      'credentials sent: basic_auth user "monitor" with the password from basic_auth.password',
    ],
    [
      http({ basicAuth: { username: "monitor", passwordFile: "/run/pw" } }),
      'credentials sent: basic_auth user "monitor" with the password from basic_auth.password_file /run/pw',
    ],
    [
      // An environment variable set but empty gives this.
      http({ basicAuth: { username: "monitor", password: "" } }),
      'credentials sent: basic_auth user "monitor" with an empty password',
    ],
    [
      http({ authorization: { type: "Bearer", credentialsFile: "/run/token" } }),
      "credentials sent: an authorization Bearer token from authorization.credentials_file /run/token",
    ],
    [
      http({ authorization: { type: "Bearer", credentials: "s3cret-B" } }),
      "credentials sent: an authorization Bearer token from authorization.credentials",
    ],
    [
      http({ tls: { certFile: "/c.pem", keyFile: "/k.pem", insecureSkipVerify: false } }),
      "credentials sent: a client certificate from tls_config.cert_file /c.pem",
    ],
    [http({}), "no credentials configured (basic_auth, authorization or tls_config.cert_file)"],
  ])("%#", (config, said) => {
    expect(credentialsUsed(URL_, config)).toBe(said);
    expect(said).not.toMatch(/s3cret/);
  });

  it("names the user written in the URL, not its password, when no setting overrides it", () => {
    const said = credentialsUsed("http://ops:s3cret-C@127.0.0.1:9090/api/v2/status", http({}));
    expect(said).toBe('credentials sent: the user "ops" and password written in the URL');
    expect(
      credentialsUsed(
        "http://ops:s3cret-C@127.0.0.1:9090",
        http({ basicAuth: { username: "monitor", password: "x" } }),
      ),
    ).toMatch(/^credentials sent: basic_auth user "monitor"/);
  });
});
