import { describe, expect, it } from "vitest";
import { acceptEncoding, isLoopback } from "../../src/upstream/compression.js";

describe("compression", () => {
  it.each([
    ["http://127.0.0.1:9090", true],
    ["http://127.3.4.5:9090", true],
    ["http://localhost:9090", true],
    ["http://prom.localhost:9090", true],
    ["http://[::1]:9090", true],
    ["http://10.0.0.1:9090", false],
    ["http://128.0.0.1:9090", false],
    ["http://127.example.org:9090", false],
    ["https://prometheus.example.org", false],
    ["http://[::2]:9090", false],
  ])("%s is loopback: %s", (url, loopback) => {
    expect(isLoopback(new URL(url))).toBe(loopback);
  });

  it("asks for gzip across a network and not on loopback when auto; gzip and none are obeyed", () => {
    const local = new URL("http://127.0.0.1:9090");
    const remote = new URL("http://prometheus.example.org:9090");
    expect(acceptEncoding(local, "auto")).toBe("identity");
    expect(acceptEncoding(remote, "auto")).toBe("gzip");
    expect(acceptEncoding(local, "gzip")).toBe("gzip");
    expect(acceptEncoding(remote, "none")).toBe("identity");
    expect(acceptEncoding(remote, undefined)).toBe("gzip");
  });
});
