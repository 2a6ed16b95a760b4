import { describe, expect, it } from "vitest";
import { excerpt } from "../../src/upstream/excerpt.js";
import { tenantHint } from "../../src/upstream/tenant-hint.js";
import { fixtureText } from "../helpers/fixtures.js";

// Mimir 3.1's Alertmanager asked without a tenant (a fake written from dskit's middleware, cited in
// test/fixtures/backends/mimir-3.1/README.md): HTTP 401, `no org id` and a newline.
const said = excerpt(fixtureText("backends/mimir-3.1/alertmanager-status-no-tenant.txt"));

describe("tenantHint", () => {
  it("names the header to set for Mimir's 401 without a tenant", () => {
    expect(tenantHint({ status: 401, upstreamText: said }, { headers: {} })).toContain(
      "set `headers: {X-Scope-OrgID: <tenant>}`",
    );
  });

  it("says the header did not arrive when it is configured (any case)", () => {
    expect(tenantHint({ status: 401, upstreamText: said }, { headers: { "x-scope-orgid": "t1" } })).toContain(
      "did not reach it",
    );
  });

  it("says nothing for other failures: another 401, a 403, no text", () => {
    expect(tenantHint({ status: 401, upstreamText: "Unauthorized" }, undefined)).toBeUndefined();
    expect(tenantHint({ status: 403, upstreamText: said }, undefined)).toBeUndefined();
    expect(tenantHint({ status: 401 }, undefined)).toBeUndefined();
  });
});
