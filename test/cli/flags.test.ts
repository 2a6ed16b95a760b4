import { availableParallelism } from "node:os";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { FlagError, parseFlags, parseListenAddress } from "../../src/cli/flags.js";
import { type AppDeps, createApp } from "../../src/http/app.js";

describe("parseFlags", () => {
  it("has Prometheus-style defaults", () => {
    expect(parseFlags([])).toMatchObject({
      configFile: "config/exporter.yml",
      listen: { host: undefined, port: 9816 },
      telemetryPath: "/metrics",
      logLevel: "info",
      decoderMemoryLimitBytes: 320 * 2 ** 20,
      probeTimeoutOffsetMs: 500,
      probeMaxConcurrent: 8 * availableParallelism(),
      webMaxRequests: 40,
      webStallTimeoutMs: 60_000,
    });
  });

  it("takes --web.stall-timeout as a duration, 0s for never", () => {
    expect(parseFlags(["--web.stall-timeout=30s"]).webStallTimeoutMs).toBe(30_000);
    expect(parseFlags(["--web.stall-timeout=0s"]).webStallTimeoutMs).toBe(0);
    expect(parseFlags(["--web.stall-timeout=24d"]).webStallTimeoutMs).toBe(24 * 86_400_000);
  });

  it("takes --web.max-requests as a whole number, 0 for no limit", () => {
    expect(parseFlags(["--web.max-requests=3"]).webMaxRequests).toBe(3);
    expect(parseFlags(["--web.max-requests", "0"]).webMaxRequests).toBe(0);
  });

  it("reads dotted flags in both --flag=value and --flag value forms", () => {
    const flags = parseFlags([
      "--config.file=/etc/x.yml",
      "--web.listen-address",
      "127.0.0.1:9999",
      "--log.level=debug",
      "--web.telemetry-path=/m",
      "--decoder.memory-limit=1GiB",
      "--probe.max-concurrent",
      "2",
    ]);
    expect(flags).toMatchObject({
      configFile: "/etc/x.yml",
      listen: { host: "127.0.0.1", port: 9999 },
      logLevel: "debug",
      telemetryPath: "/m",
      decoderMemoryLimitBytes: 2 ** 30,
      probeMaxConcurrent: 2,
    });
  });

  it("takes a telemetry path beside the other endpoints, as long as it is none of them", () => {
    expect(parseFlags(["--web.telemetry-path=/probe/metrics"]).telemetryPath).toBe("/probe/metrics");
    expect(parseFlags(["--web.telemetry-path=/-/metrics"]).telemetryPath).toBe("/-/metrics");
    expect(parseFlags(["--web.telemetry-path=/metrics/"]).telemetryPath).toBe("/metrics/");
  });

  it("refuses as telemetry path every other path the HTTP app routes", () => {
    const app = createApp({ telemetryPath: "/telemetry", log: pino({ level: "silent" }) } as unknown as AppDeps);
    const routed = (app.router as unknown as { stack: { route?: { path: string } }[] }).stack.flatMap((layer) =>
      layer.route ? [layer.route.path] : [],
    );
    const others = [...new Set(routed)].filter((path) => path !== "/telemetry");
    expect(others.length).toBeGreaterThanOrEqual(6);
    for (const path of others) expect(() => parseFlags([`--web.telemetry-path=${path}`]), path).toThrow(/clashes with/);
  });

  it("takes --flag=true and --flag=false for a boolean flag, as Prometheus's flags do", () => {
    expect(parseFlags(["--web.enable-lifecycle=true"]).enableLifecycle).toBe(true);
    expect(parseFlags(["--web.enable-lifecycle=false"]).enableLifecycle).toBe(false);
    expect(parseFlags(["--config.check=true"]).configCheck).toBe(true);
  });

  it.each([
    [["--nope"], /^Unknown option '--nope'$/],
    [["--web.listen-adress=:1"], /Unknown option '--web.listen-adress' \(did you mean --web.listen-address\?\)/],
    [["-config.file=x.yml"], /-config.file=x.yml: flags take two dashes: --config.file=x.yml/],
    [["-web.listen-address", ":1"], /flags take two dashes: --web.listen-address/],
    [["--web.enable-lifecycle=maybe"], /does not take an argument/],
    [["--log.level=loud"], /--log.level: must be one of debug, info, warn, error, got "loud"/],
    [["--web.telemetry-path=metrics"], /--web.telemetry-path: must start with \//],
    [["--web.telemetry-path=/"], /^--web.telemetry-path: "\/" clashes with \/, the status page; choose another path$/],
    [
      ["--web.telemetry-path=//"],
      /--web.telemetry-path: "\/\/" clashes with \/, the status page \(paths match regardless/,
    ],
    [["--web.telemetry-path=/probe"], /--web.telemetry-path: "\/probe" clashes with \/probe, the probe endpoint;/],
    [
      ["--web.telemetry-path=/Probe/"],
      /"\/Probe\/" clashes with \/probe, the probe endpoint \(paths match regardless of case/,
    ],
    [["--web.telemetry-path=/logs"], /--web.telemetry-path: "\/logs" clashes with \/logs, the probe logs/],
    [
      ["--web.telemetry-path=/-/healthy"],
      /--web.telemetry-path: "\/-\/healthy" clashes with \/-\/healthy, the health check/,
    ],
    [
      ["--web.telemetry-path=/-/ready"],
      /--web.telemetry-path: "\/-\/ready" clashes with \/-\/ready, the readiness check/,
    ],
    [
      ["--web.telemetry-path=/-/reload"],
      /--web.telemetry-path: "\/-\/reload" clashes with \/-\/reload, the reload endpoint/,
    ],
    [
      ["--web.telemetry-path=/:any"],
      /--web.telemetry-path: ":" is not allowed \(Express would read the path as a pattern\)/,
    ],
    [["--web.telemetry-path=/metrics*"], /--web.telemetry-path: "\*" is not allowed/],
    [["--web.listen-address=9816"], /--web.listen-address: expected \[host\]:port/],
    [["--decoder.memory-limit=512"], /--decoder.memory-limit: expected a size of at least 32MiB .* got "512"/],
    [["--decoder.memory-limit=16MiB"], /--decoder.memory-limit: expected a size of at least 32MiB/],
    [["--probe.timeout-offset=soon"], /--probe.timeout-offset: expected a duration such as 500ms or 1s, got "soon"/],
    [["--probe.max-concurrent=0"], /--probe.max-concurrent: expected a whole number of at least 1 such as 16, got "0"/],
    [["--probe.max-concurrent=-3"], /--probe.max-concurrent: expected a whole number of at least 1/],
    [["--probe.max-concurrent=2.5"], /--probe.max-concurrent: expected a whole number of at least 1/],
    [["--probe.max-concurrent=lots"], /--probe.max-concurrent: expected a whole number of at least 1/],
    [["--probe.max-concurrent="], /--probe.max-concurrent: expected a whole number of at least 1/],
    [["--web.max-requests=-1"], /--web.max-requests: expected a whole number such as 40 \(0 for no limit\), got "-1"/],
    [["--web.max-requests=2.5"], /--web.max-requests: expected a whole number such as 40/],
    [["--web.max-requests=lots"], /--web.max-requests: expected a whole number such as 40/],
    [["--web.max-requests="], /--web.max-requests: expected a whole number such as 40/],
    [["--web.stall-timeout=5"], /--web.stall-timeout: expected a duration such as 1m or 30s \(0s: never\), got "5"/],
    [["--web.stall-timeout=-1s"], /--web.stall-timeout: expected a duration/],
    [["--web.stall-timeout=1y"], /--web.stall-timeout: at most 24d \(0s: never\), got "1y"/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});

describe("parseListenAddress", () => {
  it("accepts IPv6 in brackets and rejects ports out of range", () => {
    expect(parseListenAddress("[::1]:80")).toEqual({ host: "::1", port: 80 });
    expect(() => parseListenAddress(":70000")).toThrow(FlagError);
  });
});
