import { describe, expect, it } from "vitest";
import { decodeAnswer } from "../../src/poll/decode.js";
import { decodeOptions } from "../helpers/decode-options.js";

// A decode's error message is what a /probe client reads: it says what was wrong in the exporter's
// words, never the answer's (V8's JSON.parse error quotes it, a zod path names a record's keys).
// What the answer said may be in upstreamText, which only the operator's views read.

const SECRET = "DB_PASSWORD=hunter2";
const decode = (endpoint: "tsdb" | "targets" | "status", text: string, reference = true) =>
  decodeAnswer({
    endpoint,
    body: Buffer.from(text),
    encoding: undefined,
    options: decodeOptions(),
    reference,
  });

describe("decode errors quote nothing of the answer", () => {
  it.each([
    ["status", `internal-admin: ${SECRET}`],
    ["targets", `internal-admin: ${SECRET}`],
    ["tsdb", `{"status":"success","data":${SECRET}}`],
    ["status", `"${SECRET}`],
  ] as const)("invalid JSON (%s): the reason and a fixed message", (endpoint, text) => {
    for (const reference of [true, false]) {
      const result = decode(endpoint, text, reference);
      expect(result).toMatchObject({ ok: false, reason: "invalid_json", message: "answer is not valid JSON" });
      if (!result.ok) expect(result.upstreamText).toMatch(/JSON/);
    }
  });

  it("a wrong shape is named by the schema's fields, a key the answer chose by `*`", () => {
    const answer = { status: "success", data: { activeTargets: [], droppedTargetCounts: { [SECRET]: SECRET } } };
    const result = decode("targets", JSON.stringify(answer));
    expect(result).toMatchObject({
      ok: false,
      reason: "invalid_payload",
      message: "unexpected answer: data.droppedTargetCounts.*: expected number",
    });
  });

  it("a wrong literal or type says what was expected, not what was found", () => {
    const tsdb = decode("tsdb", JSON.stringify({ status: SECRET, data: { headStats: SECRET } }));
    expect(tsdb.ok ? "" : tsdb.message).toBe(
      'unexpected answer: status: expected "success"; data.headStats: expected object',
    );
    const status = decode("status", JSON.stringify({ cluster: { status: 1, peers: [{ name: SECRET }] } }));
    expect(status.ok ? "" : status.message).not.toContain("hunter2");
    expect(status.ok ? "" : status.message).toMatch(/^unexpected answer: cluster\.status: expected string/);
  });

  it("an unsupported content-encoding is named in upstreamText only", () => {
    const result = decodeAnswer({
      endpoint: "tsdb",
      body: Buffer.from("{}"),
      encoding: SECRET,
      options: decodeOptions(),
    });
    expect(result).toMatchObject({ ok: false, reason: "invalid_json", message: "unsupported content-encoding" });
  });
});
