import { describe, expect, it } from "vitest";
import { answersAs } from "../../src/upstream/kind-of-answer.js";
import { fixtureText } from "../helpers/fixtures.js";

const buildinfo = JSON.stringify({
  status: "success",
  data: { version: "2.42.0", revision: "", branch: "", buildUser: "", buildDate: "", goVersion: "go1.19" },
});

describe("answersAs", () => {
  it("knows an Alertmanager status and a Prometheus build info", () => {
    const status = Buffer.from(fixtureText("upstream/alertmanager-status-standalone.json"));
    expect(answersAs("alertmanager", status)).toBe(true);
    expect(answersAs("prometheus", status)).toBe(false);
    expect(answersAs("prometheus", Buffer.from(buildinfo))).toBe(true);
    expect(answersAs("alertmanager", Buffer.from(buildinfo))).toBe(false);
  });

  it.each(["", "<html>ok</html>", "{}", "[]", "null", '{"status":"success","data":{}}', '{"cluster":{}}'])(
    "a 200 that is not one (%j) is neither",
    (body) => {
      expect(answersAs("alertmanager", Buffer.from(body))).toBe(false);
      expect(answersAs("prometheus", Buffer.from(body))).toBe(false);
    },
  );
});
