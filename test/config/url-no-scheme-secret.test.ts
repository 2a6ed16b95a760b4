import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";

// Hostile review of ef8747c (a url without a scheme says so); failed until the text was redacted as the URL it would be: the message
// quotes the url through redactUnparsedUrl, which hides credentials only after a `scheme://`, so a url
// written without one ("user:password@host:port", or with the password from an environment variable)
// has its password printed in the error (stderr, --config.check, a refused reload's 500 answer), while
// the suggested form beside it is redacted. schema.ts httpUrl, the withoutScheme branch.

function configError(url: string, env: NodeJS.ProcessEnv = {}): string {
  const text = `sources:\n  - name: p\n    kind: prometheus\n    url: "${url}"\n`;
  try {
    parseConfig(text, "secret.yml", env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the config was accepted");
}

describe("a source url without a scheme, with credentials", () => {
  it("says a scheme is missing without quoting the password", () => {
    const message = configError("monitor:pw-5e1f0c@prometheus:9090");
    expect(message).toContain("no scheme");
    expect(message).not.toContain("pw-5e1f0c");
  });

  it("keeps a password from the environment out of the message too", () => {
    // The config file's own ${VAR} syntax, written as a plain string.
    const url = ["monitor:$", "{PROM_PASSWORD}@prometheus:9090"].join("");
    const message = configError(url, { PROM_PASSWORD: "env-pw-77a2" });
    expect(message).not.toContain("env-pw-77a2");
  });

  it("keeps the password out where the scheme's :// lost a character", () => {
    const message = configError("https:/monitor:pw-71c4@prometheus:9090");
    expect(message).toContain('use "https://monitor:xxxxx@prometheus:9090"');
    expect(message).not.toContain("pw-71c4");
  });

  it("keeps the password of an unparseable one out of the message", () => {
    const message = configError("monitor:pw-0d9b@prom host:9090");
    expect(message).toContain("sources[0].url: ");
    expect(message).not.toContain("pw-0d9b");
  });
});
