import { describe, expect, it } from "vitest";
import type { SourceConfig } from "../../src/config/types.js";
import { convertAlertmanagerStatus } from "../../src/convert/alertmanager-status.js";
import { alertmanagerFacts } from "../../src/convert/replica-facts.js";
import { SampleSet } from "../../src/convert/samples.js";
import { isPacked, type PackedLines, packFamilies } from "../../src/exposition/pack.js";
import { type RenderedFamilies, renderSamples, sourceLabelPrefix } from "../../src/exposition/text-format.js";
import { plainText } from "../../src/exposition/unpack.js";
import type { PollOutcome } from "../../src/poll/poll-endpoint.js";
import { ownMemoryTogether } from "../../src/poll/transferable.js";
import { applyOutcome, type SourceState } from "../../src/publish/source-state.js";
import { type Exposition, SourceStore } from "../../src/publish/store.js";
import { type AlertmanagerStatusResponse, alertmanagerStatusResponse } from "../../src/upstream/payloads.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { waitFor } from "../harness/processes.js";
import { sourceConfig } from "../helpers/config.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { gzipText, partsText } from "../helpers/families.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

const A = sourceConfig({ name: "a", labels: { region: "eu-1" } });
const B = sourceConfig({ name: "b", labels: { zone: "z" } });

/** A successful outcome, rendered as the poller renders it for `config`. */
const ok = (samples: SampleSet, config = A, finishedAt = 1000): PollOutcome => ({
  ok: true,
  families: [...samples.families].map(([name, list]) => [name, renderSamples(name, sourceLabelPrefix(config), list)]),
  series: samples.size,
  durationSeconds: 0.25,
  finishedAt,
});
const textOf = (store: SourceStore) => partsText(store.exposition().parts);
const failed = (reason: PollError["reason"]): PollOutcome => ({
  ok: false,
  error: new PollError(reason, "boom"),
  durationSeconds: 0.5,
  finishedAt: 2000,
});
const targets = (...instances: string[]) => {
  const set = new SampleSet();
  for (const instance of instances) set.add("promstatus_target_up", { scrape_pool: "p", job: "j", instance }, 1);
  return set;
};
const head = (n: number) => new SampleSet().add("promstatus_tsdb_head_series", {}, n);

function twoSources() {
  return new SourceStore([A, B]);
}

describe("SourceStore", () => {
  it("serves a successful poll with the source and its static labels", async () => {
    const store = twoSources();
    store.record(A, "targets", ok(targets("x:1")));
    const text = textOf(store);
    expect(
      valueIn(text, "promstatus_target_up", {
        source: "a",
        region: "eu-1",
        instance: "x:1",
        job: "j",
        scrape_pool: "p",
      }),
    ).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: "a", endpoint: "targets" })).toBe(1);
    expect(valueIn(text, "promstatus_poll_duration_seconds", { source: "a", endpoint: "targets" })).toBe(0.25);
    expect(valueIn(text, "promstatus_last_success_timestamp_seconds", { source: "a", endpoint: "targets" })).toBe(1000);
    // Static labels of one source do not leak onto another's series.
    expect(samplesOf(text, "promstatus_target_up")[0]?.labels).not.toHaveProperty("zone");
  });

  it("drops a target that disappears from the next answer", async () => {
    const store = twoSources();
    store.record(A, "targets", ok(targets("x:1", "x:2")));
    expect(samplesOf(textOf(store), "promstatus_target_up")).toHaveLength(2);
    store.record(A, "targets", ok(targets("x:2")));
    const after = samplesOf(textOf(store), "promstatus_target_up");
    expect(after.map((s) => s.labels.instance)).toEqual(["x:2"]);
  });

  it("on a failed poll removes that endpoint's data, keeps the rest, sets up 0 and counts the reason", async () => {
    const store = twoSources();
    store.record(A, "targets", ok(targets("x:1")));
    store.record(A, "tsdb", ok(head(42)));
    store.record(B, "targets", ok(targets("y:1"), B));
    store.record(A, "targets", failed("timeout"));
    const text = textOf(store);
    expect(samplesOf(text, "promstatus_target_up", { source: "a" })).toEqual([]);
    expect(valueIn(text, "promstatus_up", { source: "a", endpoint: "targets" })).toBe(0);
    expect(
      valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "targets", reason: "timeout" }),
    ).toBe(1);
    expect(
      valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "targets", reason: "connection" }),
    ).toBe(0);
    // The last success stays: it is when the endpoint last worked.
    expect(valueIn(text, "promstatus_last_success_timestamp_seconds", { source: "a", endpoint: "targets" })).toBe(1000);
    expect(valueIn(text, "promstatus_tsdb_head_series", { source: "a" })).toBe(42);
    expect(valueIn(text, "promstatus_up", { source: "a", endpoint: "tsdb" })).toBe(1);
    expect(valueIn(text, "promstatus_target_up", { source: "b" })).toBe(1);
  });

  it("counts failures cumulatively and restores the data on the next good answer", async () => {
    const store = twoSources();
    store.record(A, "tsdb", failed("http_status"));
    store.record(A, "tsdb", failed("http_status"));
    store.record(A, "tsdb", failed("invalid_json"));
    store.record(A, "tsdb", ok(head(7)));
    const text = textOf(store);
    expect(
      valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "tsdb", reason: "http_status" }),
    ).toBe(2);
    expect(
      valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "tsdb", reason: "invalid_json" }),
    ).toBe(1);
    expect(valueIn(text, "promstatus_tsdb_head_series", { source: "a" })).toBe(7);
    expect(valueIn(text, "promstatus_up", { source: "a", endpoint: "tsdb" })).toBe(1);
  });

  it("counts the polls whose answer went to the reference path, for endpoints with a fast reader only", async () => {
    const store = twoSources();
    store.record(A, "targets", { ...ok(targets("x:1")), fallback: true });
    store.record(A, "targets", ok(targets("x:1")));
    store.record(A, "targets", { ...failed("invalid_json"), fallback: true });
    store.record(A, "tsdb", ok(head(1)));
    store.record(B, "targets", ok(targets("y:1"), B));
    const text = textOf(store);
    expect(valueIn(text, "promstatus_poll_fallback_decodes_total", { source: "a", endpoint: "targets" })).toBe(2);
    expect(valueIn(text, "promstatus_poll_fallback_decodes_total", { source: "b", endpoint: "targets" })).toBe(0);
    expect(samplesOf(text, "promstatus_poll_fallback_decodes_total", { endpoint: "tsdb" })).toEqual([]);
    expect(text).toContain("# TYPE promstatus_poll_fallback_decodes_total counter");
    expect(promtoolCheckMetrics(text).status).toBe(0);
  });

  it("counts the entries left out of answers for repeating a series, for every endpoint from zero", async () => {
    const store = twoSources();
    const repeating = (duplicates: number) => ({ ...(ok(head(1)) as PollOutcome & { ok: true }), duplicates });
    store.record(A, "tsdb", repeating(3));
    store.record(A, "tsdb", failed("invalid_json"));
    store.record(A, "tsdb", repeating(2));
    store.record(A, "targets", ok(targets("x:1")));
    const text = textOf(store);
    expect(valueIn(text, "promstatus_answer_duplicates_total", { source: "a", endpoint: "tsdb" })).toBe(5);
    expect(valueIn(text, "promstatus_answer_duplicates_total", { source: "a", endpoint: "targets" })).toBe(0);
    expect(text).toContain("# TYPE promstatus_answer_duplicates_total counter");
    expect(promtoolCheckMetrics(text).status).toBe(0);
  });

  it("serves nothing for a source before its first poll", async () => {
    const text = textOf(twoSources());
    expect(samplesOf(text, "promstatus_up")).toEqual([]);
  });

  it("escapes quotes, backslashes and newlines in label values", async () => {
    const store = twoSources();
    const nasty = 'a "quoted" \\ back\nslash';
    store.record(
      A,
      "targets",
      ok(new SampleSet().add("promstatus_target_up", { scrape_pool: nasty, job: "j", instance: "i" }, 0)),
    );
    const text = textOf(store);
    expect(text).toContain('scrape_pool="a \\"quoted\\" \\\\ back\\nslash"');
    expect(valueIn(text, "promstatus_target_up", { scrape_pool: nasty })).toBe(0);
  });

  it("renders awkward label values in a form promtool accepts", async () => {
    const store = twoSources();
    const set = new SampleSet();
    for (const value of ['say "hi"', "C:\\path\\", "two\nlines", "ünïcödé ✓", "", "{}=,"]) {
      set.add("promstatus_tsdb_label_pair_series", { label_name: "l", label_value: value }, 1);
    }
    store.record(A, "tsdb", ok(set));
    const text = textOf(store);
    expect(samplesOf(text, "promstatus_tsdb_label_pair_series")).toHaveLength(6);
    expect(valueIn(text, "promstatus_tsdb_label_pair_series", { label_value: "two\nlines" })).toBe(1);
    const result = promtoolCheckMetrics(text);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("gzips each change once, in the background, to the same bytes", async () => {
    const store = twoSources();
    store.record(A, "targets", ok(targets("x:1", "x:2")));
    const exposition = store.exposition();
    expect(exposition.gzip).toBeUndefined(); // not on the path of the change itself
    await waitFor("gzip ready", async () => store.exposition().gzip, 5000, 5);
    expect(store.exposition()).toBe(exposition);
    expect(gzipText(exposition)).toBe(textOf(store));
  });

  it("keeps the bytes of a family a poll renders unchanged (its gzip member is reused), and the gzip still matches", async () => {
    const store = twoSources();
    const many = Array.from({ length: 2000 }, (_, i) => `host-${i}:9100`); // over 64 KB of lines
    const gzipOf = async (version: ReturnType<SourceStore["exposition"]>) => {
      await waitFor("gzip ready", async () => store.exposition().gzip, 5000, 5);
      expect(store.exposition()).toBe(version);
      return gzipText(version);
    };
    store.record(A, "targets", ok(targets(...many)));
    store.record(A, "tsdb", ok(head(1)));
    const first = store.exposition();
    const upLines = first.parts.find((p) => p.length > 64 * 1024);
    expect(upLines).toBeDefined();
    expect(await gzipOf(first)).toBe(textOf(store));

    store.record(A, "targets", ok(targets(...many))); // rendered anew, to the same bytes
    store.record(A, "tsdb", ok(head(2)));
    const second = store.exposition();
    expect(second).not.toBe(first);
    expect(second.parts).toContain(upLines);
    expect(await gzipOf(second)).toBe(textOf(store));
    expect(valueIn(textOf(store), "promstatus_tsdb_head_series", { source: "a" })).toBe(2);

    store.record(A, "targets", ok(targets(...many.slice(1)))); // changed: new bytes
    expect(store.exposition().parts).not.toContain(upLines);
    expect(await gzipOf(store.exposition())).toBe(textOf(store));
  });

  it("renders once per change and again after a change", async () => {
    const store = twoSources();
    store.record(A, "tsdb", ok(head(1)));
    const first = store.exposition();
    expect(store.exposition()).toBe(first);
    store.record(A, "tsdb", ok(head(2)));
    expect(valueIn(textOf(store), "promstatus_tsdb_head_series", { source: "a" })).toBe(2);
  });

  it("ignores results for a source it does not know", async () => {
    const store = twoSources();
    store.record(sourceConfig({ name: "gone" }), "tsdb", ok(head(1)));
    expect(samplesOf(textOf(store), "promstatus_tsdb_head_series")).toEqual([]);
  });

  describe("apply (reload)", () => {
    it("keeps the series of unchanged sources and drops removed ones", async () => {
      const store = twoSources();
      store.record(A, "tsdb", ok(head(1)));
      store.record(B, "tsdb", ok(head(2), B));
      store.apply([sourceConfig({ name: "a", labels: { region: "eu-1" } })]);
      const text = textOf(store);
      expect(valueIn(text, "promstatus_tsdb_head_series", { source: "a" })).toBe(1);
      expect(samplesOf(text, "promstatus_tsdb_head_series", { source: "b" })).toEqual([]);
    });

    it("goes on from a changed source's counters and last success when its series keep their labels", async () => {
      const store = twoSources();
      store.record(A, "tsdb", ok(head(1), A, 1000));
      store.record(A, "tsdb", failed("connection"));
      store.setFlavor(A, "prometheus");
      const slower = { ...A, timeoutMs: A.timeoutMs + 1000 }; // same series, other settings
      store.apply([slower, B]);
      // Nothing of it is served until the new config's first poll, as for any changed source.
      expect(samplesOf(textOf(store), "promstatus_up", { source: "a" })).toEqual([]);
      expect([...store.states()].find((st) => st.config.name === "a")?.flavor).toBe("prometheus");
      store.record(slower, "tsdb", failed("connection"));
      const text = textOf(store);
      expect(
        valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "tsdb", reason: "connection" }),
      ).toBe(2);
      expect(valueIn(text, "promstatus_last_success_timestamp_seconds", { source: "a", endpoint: "tsdb" })).toBe(1000);
      expect(samplesOf(text, "promstatus_tsdb_head_series", { source: "a" })).toEqual([]);
    });

    it("keeps counting but forgets the last success of another server, and counts on across an endpoint switched off and on", async () => {
      const store = twoSources();
      store.record(A, "tsdb", ok(head(1), A, 1000));
      store.record(A, "tsdb", failed("connection"));
      const elsewhere = { ...A, url: "http://127.0.0.1:3" };
      store.apply([elsewhere, B]);
      const tsdbOff = { ...elsewhere, tsdb: { enabled: false, limit: undefined } };
      store.apply([tsdbOff, B]); // a second reload before any poll: tsdb off ...
      store.apply([elsewhere, B]); // ... and on again
      store.record(elsewhere, "tsdb", failed("connection"));
      const text = textOf(store);
      expect(
        valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "tsdb", reason: "connection" }),
      ).toBe(2);
      expect(samplesOf(text, "promstatus_last_success_timestamp_seconds", { source: "a" })).toEqual([]);
    });

    it("starts over where a reload changes the series' labels, and forgets the flavor of another server", async () => {
      const store = twoSources();
      store.record(A, "tsdb", ok(head(1), A, 1000));
      store.record(A, "tsdb", failed("connection"));
      store.setFlavor(A, "prometheus");
      const relabelled = sourceConfig({ name: "a", labels: { region: "eu-2" } });
      store.apply([relabelled, B]);
      store.record(relabelled, "tsdb", failed("connection"));
      const text = textOf(store);
      expect(
        valueIn(text, "promstatus_poll_failures_total", { source: "a", endpoint: "tsdb", reason: "connection" }),
      ).toBe(1);
      expect(samplesOf(text, "promstatus_last_success_timestamp_seconds", { source: "a" })).toEqual([]);
      expect([...store.states()].find((st) => st.config.name === "a")?.flavor).toBeUndefined();

      const elsewhere = { ...relabelled, url: "http://127.0.0.1:2" };
      store.setFlavor(relabelled, "prometheus");
      store.apply([elsewhere, B]);
      expect([...store.states()].find((st) => st.config.name === "a")?.flavor).toBeUndefined();
    });

    it("starts a changed source empty and ignores late results for its old config", async () => {
      const store = twoSources();
      store.record(A, "tsdb", ok(head(1)));
      const changed = sourceConfig({ name: "a", labels: { region: "eu-2" } });
      store.apply([changed, B]);
      store.record(A, "tsdb", ok(head(99))); // a poll of the old config finishing late
      expect(samplesOf(textOf(store), "promstatus_tsdb_head_series")).toEqual([]);
      store.record(changed, "tsdb", ok(head(3), changed));
      expect(valueIn(textOf(store), "promstatus_tsdb_head_series", { region: "eu-2" })).toBe(3);
    });
  });
});

describe("SourceStore: families packed by the decoder", () => {
  /** A successful outcome as a decoder thread hands it over: families of 64 KiB and more as gzip members. */
  const packed = (samples: SampleSet, config = A): PollOutcome => {
    const outcome = ok(samples, config);
    return outcome.ok ? { ...outcome, families: packFamilies(outcome.families as RenderedFamilies) } : outcome;
  };
  const many = Array.from({ length: 2000 }, (_, i) => `host-${i}:9100`); // over 64 KiB of lines
  const gzipReady = async (store: SourceStore) => {
    await waitFor("gzip ready", async () => store.exposition().gzip, 5000, 5);
    return store.exposition();
  };
  const packedPart = (exposition: Exposition) => exposition.parts.find(isPacked) as PackedLines;

  it("keeps the members of a family whose lines did not change (the same buffers) and replaces changed ones", async () => {
    const store = twoSources();
    store.record(A, "targets", packed(targets(...many)));
    store.record(A, "tsdb", ok(head(1))); // decoded inline: plain, next to packed ones
    const first = await gzipReady(store);
    const up = packedPart(first);
    expect(up.members.length).toBeGreaterThan(0);
    // The gzip scrape writes the family's own members, not a copy.
    for (const member of up.members) expect(first.gzip?.members).toContain(member);
    expect(gzipText(first)).toBe((await plainText(first.parts)).toString());
    expect(valueIn(gzipText(first), "promstatus_target_up", { instance: "host-1999:9100" })).toBe(1);

    store.record(A, "targets", packed(targets(...many))); // rendered and packed anew, to the same bytes
    store.record(A, "tsdb", ok(head(2)));
    const second = await gzipReady(store);
    expect(second).not.toBe(first);
    expect(packedPart(second)).toBe(up);
    for (const member of up.members) expect(second.gzip?.members).toContain(member); // not compressed again
    expect(gzipText(second)).toBe((await plainText(second.parts)).toString());
    expect(valueIn(gzipText(second), "promstatus_tsdb_head_series", { source: "a" })).toBe(2);

    store.record(A, "targets", packed(targets(...many.slice(1)))); // changed: new members
    const third = await gzipReady(store);
    expect(packedPart(third)).not.toBe(up);
    expect(third.gzip?.members).not.toContain(up.members[0]);
    const text = gzipText(third);
    expect(text).toBe((await plainText(third.parts)).toString());
    expect(samplesOf(text, "promstatus_target_up", { instance: "host-0:9100" })).toEqual([]);
    expect(promtoolCheckMetrics(text).status).toBe(0);
  });

  it("frees the members of a new copy of an unchanged family at once, keeping the served ones whole", async () => {
    const store = twoSources();
    store.record(A, "targets", packed(targets(...many)));
    const first = await gzipReady(store);
    const up = packedPart(first);
    const sizes = up.members.map((m) => m.byteLength);
    // What a decoder thread sends for the unchanged family: members in memory of their own (handOver).
    const again = packed(targets(...many));
    const copy = again.ok ? (again.families.find(([, lines]) => isPacked(lines))?.[1] as PackedLines) : undefined;
    if (copy) copy.members = ownMemoryTogether(copy.members);
    expect(copy?.members.length).toBe(up.members.length);
    store.record(A, "targets", again);
    const second = await gzipReady(store);
    expect(packedPart(second)).toBe(up);
    expect(up.members.map((m) => m.byteLength)).toEqual(sizes);
    // Freed where the runtime can detach memory (Node.js 21 and newer), else left to the collector.
    const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
    for (const member of copy?.members ?? []) expect(member.byteLength === 0).toBe(canDetach);
    expect(gzipText(second)).toBe((await plainText(second.parts)).toString());
  });

  it("counts the series of a packed answer as those of its poll", async () => {
    const store = twoSources();
    store.record(A, "targets", packed(targets(...many)));
    const state = [...store.states()][0]?.endpoints.get("targets");
    expect(state?.series).toBe(2000);
    expect(state?.families?.some(([, lines]) => isPacked(lines))).toBe(true);
    // A family that grows past the threshold between polls goes from plain to packed, and back.
    store.record(A, "targets", ok(targets(...many.slice(0, 10))));
    expect(samplesOf(textOf(store), "promstatus_target_up")).toHaveLength(10);
    store.record(A, "targets", packed(targets(...many)));
    expect(samplesOf(textOf(store), "promstatus_target_up")).toHaveLength(2000);
  });
});

describe("SourceStore: replica groups", () => {
  const member = (name: string) =>
    sourceConfig({
      name,
      kind: "alertmanager",
      group: "am-prod",
      labels: {},
      tsdb: { enabled: false, limit: undefined },
    });
  const [am0, am1] = [member("am-0"), member("am-1")];
  const status = (fixture: string, config: SourceConfig): PollOutcome => {
    const payload = upstreamFixture<AlertmanagerStatusResponse>(`groups/${fixture}`, alertmanagerStatusResponse);
    const outcome = ok(convertAlertmanagerStatus(payload), config);
    return outcome.ok ? { ...outcome, facts: alertmanagerFacts(payload) } : outcome;
  };

  it("labels every series of a member with its group and compares the members whenever one is polled", async () => {
    const store = new SourceStore([am0, am1, B]);
    store.record(am0, "status", status("alertmanager-split-0.json", am0));
    let text = textOf(store);
    expect(valueIn(text, "promstatus_up", { source: "am-0", group: "am-prod", endpoint: "status" })).toBe(1);
    expect(valueIn(text, "promstatus_alertmanager_cluster_peers", { source: "am-0", group: "am-prod" })).toBe(1);
    expect(samplesOf(text, "promstatus_up", { source: "b" })[0]?.labels.group).toBeUndefined();
    expect(valueIn(text, "promstatus_group_sources", { group: "am-prod" })).toBe(2);
    expect(valueIn(text, "promstatus_group_sources_up", { group: "am-prod" })).toBe(1);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-prod" })).toBe(1);

    store.record(am1, "status", status("alertmanager-split-1.json", am1));
    text = textOf(store);
    expect(valueIn(text, "promstatus_group_sources_up", { group: "am-prod" })).toBe(2);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-prod" })).toBe(2);
    expect(valueIn(text, "promstatus_group_alertmanager_missing_peers", { group: "am-prod", source: "am-1" })).toBe(1);
    expect(promtoolCheckMetrics(text).status).toBe(0);

    store.record(am1, "status", failed("timeout")); // out of the comparison, still a member
    text = textOf(store);
    expect(valueIn(text, "promstatus_group_sources_up", { group: "am-prod" })).toBe(1);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-prod" })).toBe(1);
    expect(samplesOf(text, "promstatus_group_alertmanager_missing_peers", { source: "am-1" })).toEqual([]);
  });

  it("recomputes the groups on reload: a removed member leaves, an emptied group goes", async () => {
    const store = new SourceStore([am0, am1]);
    store.record(am0, "status", status("alertmanager-healthy-0.json", am0));
    store.record(am1, "status", status("alertmanager-healthy-1.json", am1));
    store.apply([am0]);
    expect(valueIn(textOf(store), "promstatus_group_sources", { group: "am-prod" })).toBe(1);
    store.apply([B]);
    expect(samplesOf(textOf(store), "promstatus_group_sources")).toEqual([]);
  });

  it("compares probed members beside the group's sources, and lets a group of probed members go with them", async () => {
    const probedState = (name: string) => {
      const config = { ...member(name), url: name };
      const outcome = status("alertmanager-split-1.json", config);
      if (!outcome.ok) throw new Error("fixture");
      return { config, endpoints: new Map([["status", applyOutcome(undefined, outcome)]]) } as SourceState;
    };
    let probed: SourceState[] = [probedState("http://am-1:9093")];
    const store = new SourceStore([am0]);
    store.takeProbedMembers((group) => probed.filter((s) => group === undefined || s.config.group === group));
    store.record(am0, "status", status("alertmanager-split-0.json", am0));
    let text = textOf(store);
    expect(valueIn(text, "promstatus_group_sources", { group: "am-prod" })).toBe(2);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-prod" })).toBe(2);
    // A probed member that is no longer probed leaves once the prober says so.
    probed = [];
    store.regroupProbed(["am-prod"]);
    text = textOf(store);
    expect(valueIn(text, "promstatus_group_sources", { group: "am-prod" })).toBe(1);
    // A server that is a source of the group is not a probed member of it as well.
    probed = [{ ...probedState("http://am-0:9093"), config: { ...am0, name: "http://am-0:9093", url: am0.url } }];
    store.regroupProbed(["am-prod"]);
    expect(valueIn(textOf(store), "promstatus_group_sources", { group: "am-prod" })).toBe(1);
    // A group of probed members only goes with its last member.
    store.apply([B]);
    probed = [probedState("http://am-1:9093")];
    store.regroupProbed(["am-prod"]);
    expect(valueIn(textOf(store), "promstatus_group_sources", { group: "am-prod" })).toBe(1);
    probed = [];
    store.regroupProbed(["am-prod"]);
    expect(samplesOf(textOf(store), "promstatus_group_sources")).toEqual([]);
  });
});
