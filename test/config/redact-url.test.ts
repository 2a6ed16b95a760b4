import { describe, expect, it } from "vitest";
import { redactUrl } from "../../src/config/redact-url.js";

describe("redactUrl", () => {
  it("hides a password and keeps the rest", () => {
    expect(redactUrl("https://admin:hunter2@prom.example.com/prom")).toBe("https://admin:xxxxx@prom.example.com/prom");
  });
  it("leaves a URL without password untouched", () => {
    expect(redactUrl("http://127.0.0.1:9090")).toBe("http://127.0.0.1:9090");
  });
});
