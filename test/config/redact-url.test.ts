import { describe, expect, it } from "vitest";
import { redactUnparsedUrl, redactUrl } from "../../src/config/redact-url.js";

describe("redactUrl", () => {
  it("hides a password and keeps the rest", () => {
    expect(redactUrl("https://admin:hunter2@prom.example.com/prom")).toBe("https://admin:xxxxx@prom.example.com/prom");
  });
  it("leaves a URL without password untouched", () => {
    expect(redactUrl("http://127.0.0.1:9090")).toBe("http://127.0.0.1:9090");
  });
});

describe("redactUnparsedUrl", () => {
  it.each([
    ["http://monitor:s3cr3t/Tok+en==@host:9090", "http://monitor:xxxxx@host:9090"],
    ["http://monitor:a@b/c@prom host:9090", "http://monitor:xxxxx@prom host:9090"],
    ["https://Zm9v/YmFy+YmF6@prom host", "https://xxxxx@prom host"],
    ["http://prom host:9090/path", "http://prom host:9090/path"],
  ])("%s -> %s", (text, shown) => expect(redactUnparsedUrl(text)).toBe(shown));

  it("is what redactUrl shows for a URL that does not parse", () => {
    // The WHATWG parser ends the authority at the first "/": "s3cr3t/..." becomes a bad port.
    expect(() => new URL("http://monitor:s3cr3t/Tok+en==@host:9090")).toThrow();
    expect(redactUrl("http://monitor:s3cr3t/Tok+en==@host:9090")).toBe("http://monitor:xxxxx@host:9090");
  });
});
