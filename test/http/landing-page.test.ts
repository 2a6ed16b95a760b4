import { describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/config/types.js";
import type { EndpointSummary } from "../../src/convert/endpoint-summary.js";
import { type LandingPageInfo, landingPage, NAMES_LISTED, plural } from "../../src/http/landing-page.js";
import type { GroupTable } from "../../src/publish/groups.js";
import type { EndpointState } from "../../src/publish/source-state.js";
import type { SourceStatus } from "../../src/publish/source-status.js";

// The status page as rendered HTML: the summary on top, each source's figures, groups whose members
// differ, correct plurals, and a page that stays short for a large fleet.

const NOW = 1_800_000_000;

function state(summary?: EndpointSummary, failing = false): EndpointState {
  return {
    up: failing ? 0 : 1,
    durationSeconds: 0.012,
    lastSuccessSeconds: NOW,
    lastPollSeconds: NOW,
    series: failing ? 0 : 10,
    lastError: failing ? { reason: "connection", message: "connection refused" } : undefined,
    failures: new Map(),
    fallbacks: 0,
    duplicates: 0,
    families: undefined,
    facts: undefined,
    summary,
  };
}

function source(
  name: string,
  kind: "prometheus" | "alertmanager",
  endpoints: [Endpoint, EndpointState | undefined][],
): SourceStatus {
  return {
    name,
    kind,
    group: undefined,
    url: `http://${name}:9090`,
    endpoints: endpoints.map(([endpoint, s]) => ({ endpoint, state: s })),
    summary: Object.assign({}, ...endpoints.map(([, s]) => s?.summary)),
  };
}

const prometheus = (name: string, targets: { up: number; down: number; total: number }, headSeries = 1172) =>
  source(name, "prometheus", [
    ["tsdb", state({ headSeries })],
    ["targets", state({ targets })],
  ]);
const alertmanager = (name: string, peerNames: string[], peers = peerNames.length, status = "ready") =>
  source(name, "alertmanager", [["status", state({ cluster: { status, peers, peerNames } })]]);

const page = (info: Partial<LandingPageInfo>) =>
  landingPage({ version: "1.2.3", telemetryPath: "/metrics", sources: [], groups: [], probes: [], ...info });

describe("landing page links", () => {
  it("links every page relative to itself, so that it works behind a reverse proxy's path prefix", () => {
    const html = page({ telemetryPath: "/custom/metrics" });
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1] as string);
    expect(hrefs).toContain("./custom/metrics");
    expect(hrefs.filter((h) => h.startsWith("/"))).toEqual([]);
  });
});

/** The summary list's items, as text (tags dropped). */
function summaryOf(html: string): string[] {
  const list = html.match(/<ul class="summary">\n([\s\S]*?)\n<\/ul>/)?.[1] ?? "";
  return list.split("\n").map((li) => li.replace(/<[^>]+>/g, ""));
}

/** The overview table's row of a source, cells as text. */
function overviewRow(html: string, name: string): { css: string; cells: string[] } | undefined {
  const table = html.match(/<table class="overview">([\s\S]*?)<\/table>/)?.[1] ?? "";
  for (const line of table.split("\n")) {
    const m = line.match(/^<tr class="(\w+)">(.*)<\/tr>$/);
    if (!m?.[2]?.includes(`#source-${name}"`)) continue;
    const cells = [...m[2].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => (c[1] ?? "").replace(/<[^>]+>/g, ""));
    return { css: m[1] as string, cells };
  }
  return undefined;
}

const group = (g: Partial<GroupTable>): GroupTable => ({
  name: "g",
  kind: "prometheus",
  members: [],
  differences: [],
  ...g,
});

describe("status page: summary", () => {
  it("offers POST /-/reload only when --web.enable-lifecycle allows it; SIGHUP always", () => {
    expect(page({ lifecycle: true })).toContain("reload the config: <code>POST /-/reload</code> or SIGHUP.");
    expect(page({ lifecycle: false })).toContain("reload the config: SIGHUP.");
    expect(page({ lifecycle: false })).not.toContain("/-/reload");
  });

  it("says how many sources are ok, failing and not polled yet, naming the failing ones", () => {
    const html = page({
      sources: [
        prometheus("prom-a", { up: 5, down: 5, total: 10 }),
        alertmanager("am-a", ["x", "y"]),
        source("gone", "alertmanager", [["status", state(undefined, true)]]),
        source("new", "prometheus", [
          ["tsdb", undefined],
          ["targets", undefined],
        ]),
      ],
    });
    const summary = summaryOf(html);
    expect(summary[0]).toBe("4 sources: 1 ok, 1 with warnings (prom-a), 1 failing (gone), 1 not polled yet");
    expect(html).toContain('<li class="failing">4 sources: 1 ok');
    expect(html).toContain('1 failing (<a href="#source-gone">gone</a>)');
    // Targets of the source not polled yet are not counted, and that is said.
    expect(summary[1]).toBe("5 of 10 targets down (prom-a); the targets of 1 source not known");
    expect(html).toContain('<li class="warning">5 of 10 targets down');
  });

  it("is all ok for a healthy fleet, and says nothing of groups or reloads that are not there", () => {
    const html = page({ sources: [prometheus("p", { up: 3, down: 0, total: 3 }), alertmanager("a", ["a"])] });
    expect(summaryOf(html)).toEqual(["2 sources: 2 ok, 0 failing", "0 of 3 targets down"]);
    expect(html).not.toContain('<li class="failing">');
    expect(html).not.toContain('<li class="warning">');
  });

  it("counts the replica groups whose members differ, and says what differs", () => {
    const html = page({
      groups: [
        group({ name: "prom-pair", differences: ["targets", "config"] }),
        group({ name: "am", kind: "alertmanager" }),
      ],
    });
    expect(summaryOf(html)).toContain("1 of 2 replica groups differs (prom-pair: targets, config)");
    expect(html).toContain('<a href="#group-prom-pair">prom-pair</a>');
    const agreeing = page({ groups: [group({ name: "a" }), group({ name: "b" })] });
    expect(summaryOf(agreeing)).toContain("2 replica groups, members agreeing");
  });

  it("shows a refused reload of the exporter's config, and a Prometheus whose own reload failed", () => {
    const refusing = source("prom-r", "prometheus", [
      ["targets", state({ targets: { up: 1, down: 0, total: 1 } })],
      ["runtimeinfo" as Endpoint, state({ configReloadSuccessful: false })],
    ]);
    const html = page({ sources: [refusing], refusedReload: { atSeconds: NOW, problems: 2 } });
    const summary = summaryOf(html);
    expect(summary).toContain("Prometheus config reload failed on prom-r");
    expect(summary).toContain(
      "This exporter's config reload was refused at 2027-01-15T08:00:00Z (2 problems): the running config stays; the log says why",
    );
    expect(overviewRow(html, "prom-r")?.cells[3]).toBe("config reload failed");
    expect(summaryOf(page({ refusedReload: { atSeconds: NOW, problems: 1 } })).join()).toContain("(1 problem)");
    expect(page({ refusedReload: undefined })).not.toContain("reload was refused");
  });
});

describe("status page: per source", () => {
  it("gives a Prometheus's targets up, down and total and its head series; one with targets down is not ok", () => {
    const html = page({ sources: [prometheus("prom-a", { up: 5, down: 5, total: 10 }, 1234567)] });
    expect(overviewRow(html, "prom-a")).toEqual({
      css: "warning",
      cells: ["prom-a", "prometheus", "", "5 targets down", "5", "5", "10", "1,234,567", "", ""],
    });
    const healthy = page({ sources: [prometheus("prom-b", { up: 10, down: 0, total: 10 })] });
    expect(overviewRow(healthy, "prom-b")?.css).toBe("ok");
    expect(overviewRow(healthy, "prom-b")?.cells[3]).toBe("ok");
  });

  it("gives an Alertmanager's cluster status and peers; a cluster not ready is a warning", () => {
    const html = page({
      sources: [alertmanager("am-0", ["am-0", "am-1", "am-2"]), alertmanager("am-9", ["x"], 1, "settling")],
    });
    expect(overviewRow(html, "am-0")?.cells.slice(3)).toEqual([
      "ok",
      "",
      "",
      "",
      "",
      "ready",
      "3 peers: am-0, am-1, am-2",
    ]);
    expect(overviewRow(html, "am-9")).toMatchObject({ css: "warning" });
    expect(overviewRow(html, "am-9")?.cells.slice(8)).toEqual(["settling", "1 peer: x"]);
    // Clustering off: a standalone Alertmanager is fine as it is.
    const standalone = page({ sources: [alertmanager("am-solo", [], 0, "disabled")] });
    expect(overviewRow(standalone, "am-solo")).toMatchObject({ css: "ok" });
  });

  it("names a failing source's failing endpoints, whatever its last answers said", () => {
    const html = page({
      sources: [
        source("p", "prometheus", [
          ["tsdb", state({ headSeries: 5 })],
          ["targets", state(undefined, true)],
        ]),
      ],
    });
    expect(overviewRow(html, "p")).toMatchObject({ css: "failing" });
    expect(overviewRow(html, "p")?.cells.slice(3, 8)).toEqual(["failing: targets", "", "", "", "5"]);
  });

  it("says 'not supported' for an endpoint the server lacks, and the source is still ok", () => {
    const html = page({
      sources: [
        source("old", "prometheus", [
          ["buildinfo", state()],
          ["features", state({ unsupported: true })],
        ]),
      ],
    });
    expect(html).toMatch(/<tr class="pending"><td>features<\/td><td class="result">not supported<\/td>/);
    expect(html).toMatch(/<tr class="ok"><td>buildinfo<\/td><td class="result">ok<\/td>/);
    expect(overviewRow(html, "old")).toMatchObject({ css: "ok" });
  });
});

describe("status page: flavor", () => {
  it("says on each source's line what it is and how that is known; the overview names the flavors other than Prometheus's own", () => {
    const vm = { ...prometheus("vm", { up: 1, down: 0, total: 1 }), flavor: "victoriametrics" as const };
    const set = {
      ...prometheus("query", { up: 1, down: 0, total: 1 }),
      flavor: "thanos" as const,
      flavorConfigured: true,
    };
    const prom = { ...prometheus("prom", { up: 1, down: 0, total: 1 }), flavor: "prometheus" as const };
    const fresh = { ...prometheus("new", { up: 1, down: 0, total: 1 }), flavor: "unknown" as const };
    const mimir = { ...alertmanager("tenant", []), flavor: "mimir" as const };
    const am = { ...alertmanager("am", ["x"]), flavor: "prometheus" as const };
    const html = page({ sources: [vm, set, prom, fresh, mimir, am] });
    const line = (name: string) =>
      html.match(new RegExp(`<h3 id="source-${name}">.*?</h3>`))?.[0].replace(/<[^>]+>/g, "");
    expect(line("vm")).toBe("vm prometheus (VictoriaMetrics, detected), http://vm:9090");
    expect(line("query")).toBe("query prometheus (Thanos Query, configured), http://query:9090");
    expect(line("prom")).toBe("prom prometheus (Prometheus, detected), http://prom:9090");
    expect(line("new")).toBe("new prometheus (flavor not known yet), http://new:9090");
    expect(line("tenant")).toBe("tenant alertmanager (Mimir, detected), http://tenant:9090");
    expect(line("am")).toBe("am alertmanager (Alertmanager, detected), http://am:9090");
    expect(["vm", "query", "prom", "new", "tenant", "am"].map((n) => overviewRow(html, n)?.cells[1])).toEqual([
      "prometheus (VictoriaMetrics)",
      "prometheus (Thanos Query)",
      "prometheus",
      "prometheus",
      "alertmanager (Mimir)",
      "alertmanager",
    ]);
  });
});

describe("status page: plurals", () => {
  it("says 1 target, 2 targets, 0 targets, 1 peer", () => {
    expect(plural(1, "target")).toBe("1 target");
    expect(plural(2, "target")).toBe("2 targets");
    expect(plural(0, "target")).toBe("0 targets");
    expect(plural(12345, "peer")).toBe("12,345 peers");
    const html = page({
      sources: [prometheus("p", { up: 0, down: 1, total: 1 }), alertmanager("a", ["a"])],
      groups: [group({ differences: ["targets"] })],
    });
    expect(summaryOf(html)).toEqual([
      "2 sources: 1 ok, 1 with warnings (p), 0 failing",
      "1 of 1 target down (p)",
      "1 of 1 replica group differs (g: targets)",
    ]);
    expect(overviewRow(html, "p")?.cells[3]).toBe("1 target down");
    expect(overviewRow(html, "a")?.cells[9]).toBe("1 peer: a");
    expect(html).not.toMatch(/\b1 (targets|peers|sources|problems|replica groups)\b/);
  });
});

describe("status page: replica groups", () => {
  const prometheusPair = group({
    name: "prom-pair",
    differences: ["targets", "config", "versions"],
    members: [
      {
        source: "prom-0",
        up: true,
        lastSuccessSeconds: NOW,
        view: "3 targets, 0 down",
        configHashPrefix: "aaaaaaaaaaaa",
        rulesHashPrefix: "rrrrrrrrrrrr",
        flagsHashPrefix: "ffffffffffff",
        version: "2.42.0",
      },
      {
        source: "prom-1",
        up: true,
        lastSuccessSeconds: NOW,
        view: "4 targets, 1 down",
        configHashPrefix: "bbbbbbbbbbbb",
        rulesHashPrefix: "rrrrrrrrrrrr",
        flagsHashPrefix: "ffffffffffff",
        version: "3.5.0",
      },
      {
        source: "prom-2",
        up: true,
        lastSuccessSeconds: NOW,
        view: "3 targets, 0 down",
        configHashPrefix: "aaaaaaaaaaaa",
        rulesHashPrefix: "rrrrrrrrrrrr",
        flagsHashPrefix: "ffffffffffff",
        version: "2.42.0",
      },
    ],
  });

  it("highlights a group whose members differ, says what differs and marks the member that is out of step", () => {
    const html = page({ groups: [prometheusPair] });
    expect(html).toContain('<h3 class="differs">prom-pair <small>prometheus</small></h3>');
    expect(html).toContain('<p class="differs">Members differ: targets, config, versions</p>');
    expect(html).toContain('<table id="group-prom-pair" class="group differs" data-group="prom-pair">');
    expect(html).toContain(
      "<tr><th>source</th><th>last poll</th><th>last success</th><th>view (differs)</th><th>config sha256 (differs)</th><th>rules sha256</th><th>flags sha256</th><th>version (differs)</th></tr>",
    );
    // The odd one out is marked, in what differs only; the members that agree are not.
    expect(html).toContain(
      '<tr class="ok"><td>prom-1</td><td class="result">up</td><td>2027-01-15T08:00:00Z</td><td class="odd">4 targets, 1 down</td><td class="odd"><code>bbbbbbbbbbbb</code></td><td><code>rrrrrrrrrrrr</code></td><td><code>ffffffffffff</code></td><td class="odd"><code>3.5.0</code></td></tr>',
    );
    expect(html).toContain(
      '<tr class="ok"><td>prom-0</td><td class="result">up</td><td>2027-01-15T08:00:00Z</td><td>3 targets, 0 down</td><td><code>aaaaaaaaaaaa</code></td><td><code>rrrrrrrrrrrr</code></td><td><code>ffffffffffff</code></td><td><code>2.42.0</code></td></tr>',
    );
  });

  it("marks every value of a pair that differs (neither is the odd one out), and nothing of a group that agrees", () => {
    const pair = { ...prometheusPair, members: prometheusPair.members.slice(0, 2) };
    const html = page({ groups: [pair] });
    expect(html.match(/<td class="odd"><code>(aaaaaaaaaaaa|bbbbbbbbbbbb)<\/code>/g)).toHaveLength(2);
    const agreeing = page({ groups: [{ ...pair, differences: [] }] });
    expect(agreeing).toContain("<h3>prom-pair <small>prometheus</small></h3>");
    expect(agreeing).not.toContain('class="odd"');
    expect(agreeing).not.toContain('class="differs"');
    expect(agreeing).not.toContain("(differs)");
  });

  it("shows only the columns the members have: an Alertmanager group's config hash, no Prometheus digests", () => {
    const html = page({
      groups: [
        group({
          name: "am",
          kind: "alertmanager",
          differences: ["cluster views"],
          members: [
            { source: "am-0", up: true, lastSuccessSeconds: NOW, view: "1 peer: am-0 (self)", configHashPrefix: "c" },
            {
              source: "am-1",
              up: false,
              lastSuccessSeconds: undefined,
              view: "no answer",
              configHashPrefix: undefined,
            },
          ],
        }),
      ],
    });
    expect(html).toContain(
      "<tr><th>source</th><th>last poll</th><th>last success</th><th>view (differs)</th><th>config sha256</th></tr>",
    );
    // A member that did not answer is down, not the odd one out.
    expect(html).toContain("<td>never</td><td>no answer</td><td><code></code></td></tr>");
  });
});

describe("status page: a large fleet", () => {
  it("stays bounded: failing sources and peers are cut to a few names and 'and N more'", () => {
    const sources = [
      ...Array.from({ length: 300 }, (_, i) =>
        source(`gone-${i}`, "alertmanager", [["status", state(undefined, true)]]),
      ),
      ...Array.from({ length: 200 }, (_, i) => prometheus(`prom-${i}`, { up: 400, down: 100, total: 500 })),
      alertmanager("big-cluster", ["p-0", "p-1", "p-2"], 500),
    ];
    const html = page({
      sources,
      groups: Array.from({ length: 40 }, (_, i) => group({ name: `g${i}`, differences: ["config"] })),
    });
    const summary = summaryOf(html);
    expect(summary[0]).toBe(
      "501 sources: 1 ok, 200 with warnings (prom-0, prom-1, prom-2, prom-3, prom-4 and 195 more), 300 failing (gone-0, gone-1, gone-2, gone-3, gone-4 and 295 more)",
    );
    expect(summary[1]).toBe(`20,000 of 100,000 targets down (prom-0, prom-1, prom-2, prom-3, prom-4 and 195 more)`);
    expect(summary[2]).toMatch(/^40 of 40 replica groups differ \(g0: config; .*; g4: config and 35 more\)$/);
    expect(summary[0]?.match(/gone-/g)).toHaveLength(NAMES_LISTED);
    expect(summary[0]?.match(/prom-/g)).toHaveLength(NAMES_LISTED);
    expect(overviewRow(html, "big-cluster")?.cells[9]).toBe("500 peers: p-0, p-1, p-2 and 497 more");
    // One overview line and one endpoint table per source: a few KB per source, whatever their targets.
    expect(html.length).toBeLessThan(sources.length * 3000);
  });
});

describe("status page: escaping", () => {
  it("escapes names in links, anchors and the summary", () => {
    const html = page({
      sources: [source('<b>"x"</b>', "alertmanager", [["status", state(undefined, true)]])],
      groups: [group({ name: "<g>", differences: ["<config>"] })],
    });
    expect(html).not.toContain("<b>");
    expect(html).toContain('<a href="#source-&lt;b&gt;&quot;x&quot;&lt;/b&gt;">');
    expect(html).toContain("&lt;g&gt;</a>: &lt;config&gt;");
    expect(html).not.toContain("<config>");
  });
});
