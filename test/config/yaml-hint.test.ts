// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is config syntax here, written as users write it
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/load.js";

const HINT = "inside { } or [ ] a ${...} must be quoted";

/** The problems parseConfig gives for this text, each as 'line: message'. */
function problems(text: string): string[] {
  try {
    parseConfig(text, "/tmp/exporter.yml", { PROM_PASSWORD: "p", HOST: "h" });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.line}: ${p.message}`);
    throw err;
  }
  throw new Error("accepted");
}

describe("a YAML error from an unquoted ${VAR} in a flow map or sequence", () => {
  it("suggests quoting it, once for its line", () => {
    expect(
      problems(
        "sources:\n  - {name: a, kind: prometheus, url: http://h, basic_auth: {username: u, password: ${PROM_PASSWORD}}}\n",
      ),
    ).toEqual([`2: invalid YAML: Unexpected flow-map-start at node end; ${HINT}: password: "\${PROM_PASSWORD}"`]);
  });

  it("in a flow map spread over lines", () => {
    const text =
      "sources:\n  - name: a\n    basic_auth: {\n      username: u,\n      password: ${PROM_PASSWORD}\n    }\n";
    expect(problems(text)[0]).toBe(
      `5: invalid YAML: Unexpected flow-map-start at node end; ${HINT}: password: "\${PROM_PASSWORD}"`,
    );
  });

  it("as an item of a flow sequence", () => {
    const [first] = problems("modules:\n  m: {kind: prometheus, allowed_targets: [${HOST}, b]}\n");
    expect(first).toMatch(/^2: invalid YAML: /);
    expect(first?.endsWith(`; ${HINT}: "\${HOST}"`)).toBe(true);
  });

  it("inside a longer value, without quoting the rest of it (it may hold a secret)", () => {
    const [first] = problems("sources:\n  - {name: a, kind: prometheus, url: http://u:s3cret${HOST}x@h}\n");
    expect(first).toBe(
      `2: invalid YAML: Unexpected flow-map-start at node end; ${HINT}, the whole value holding it: "...\${HOST}..."`,
    );
    expect(first).not.toContain("s3cret");
  });

  it("gives no such hint for other YAML errors", () => {
    expect(problems("sources:\n  - name: a\n   kind: ${HOST}\n").join("\n")).not.toContain("quoted");
  });

  it("needs no quotes outside { } and [ ]", () => {
    const config = parseConfig(
      "sources:\n  - name: a\n    kind: prometheus\n    url: http://${HOST}:9090\n    basic_auth:\n      username: u\n      password: ${PROM_PASSWORD}\n",
      "/tmp/exporter.yml",
      { PROM_PASSWORD: "p", HOST: "h" },
    );
    expect(config.sources[0]?.http.basicAuth?.password).toBe("p");
  });
});
