import { describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { logfmtValue, toLogfmt } from "../../src/logfmt.js";

describe("logfmt lines", () => {
  it("writes ts, level and msg first, then the fields, nested ones with dotted keys", () => {
    const line = JSON.stringify({
      level: 40,
      time: "2026-11-24T00:00:00.000Z",
      app: "prometheus-status-exporter",
      msg: "poll failed",
      source: "prom-0",
      address: { address: "127.0.0.1", port: 9816 },
      ok: false,
      tags: ["a", "b"],
    });
    expect(toLogfmt(line)).toBe(
      'ts=2026-11-24T00:00:00.000Z level=warn msg="poll failed" app=prometheus-status-exporter source=prom-0 ' +
        'address.address=127.0.0.1 address.port=9816 ok=false tags="[\\"a\\",\\"b\\"]"\n',
    );
  });

  it("quotes what must be quoted, so a value never spills into the next key", () => {
    expect(logfmtValue("plain")).toBe("plain");
    expect(logfmtValue("")).toBe('""');
    expect(logfmtValue("a b")).toBe('"a b"');
    expect(logfmtValue("k=v")).toBe('"k=v"');
    expect(logfmtValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(logfmtValue("back\\slash")).toBe('"back\\\\slash"');
    expect(logfmtValue("two\nlines")).toBe('"two\\nlines"');
    expect(logfmtValue(3)).toBe("3");
    expect(logfmtValue(null)).toBe("null");
  });

  it("is chosen by --log.format, json by default, anything else refused", () => {
    expect(parseFlags([]).logFormat).toBe("json");
    expect(parseFlags(["--log.format=logfmt"]).logFormat).toBe("logfmt");
    expect(() => parseFlags(["--log.format=text"])).toThrow(/--log.format: must be one of json, logfmt, got "text"/);
  });
});
