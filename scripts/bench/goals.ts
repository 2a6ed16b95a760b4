// The goals against one run's figures: each met or missed with the measured value, and for a miss where
// its cost goes as far as the same run can tell (CPU per thread, the stages of a poll, the daemon's log).
import { slopePer } from "./growth-chart.js";
import type { ScrapeLoad } from "./scrape-load.js";
import type { StageRow } from "./stages.js";
import type { WholePollRow } from "./whole-poll.js";

export interface GoalInputs {
  whole: WholePollRow[];
  /** Where the 100k goals are checked, and the 500k ones (the largest size measured). */
  goalTargets: number;
  largeTargets: number;
  scrapes: ScrapeLoad | { failure: string } | undefined;
  stages: StageRow[];
}

/** The goals' thresholds. MB = 10^6 bytes. */
export const GOALS = {
  cpuRatio: 2.0,
  peakRssMB: 200,
  betweenOverIdleMB: 50,
  loopMaxMs: 30,
  scrapeP50Ratio: 1.25,
  largePeakRssMB: 450,
  largeHealthyMs: 100,
} as const;

export interface Goal {
  goal: string;
  measured: string;
  /** undefined: measured, no threshold. */
  met: boolean | undefined;
  why: string;
}

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const x = (ratio: number) => `${f(ratio, 2)}x`;
const k = (targets: number) => (targets % 1000 === 0 ? `${targets / 1000}k` : String(targets));
const ok = (n: number, limit: number) => Number.isFinite(n) && n <= limit;

/** CPU per poll by thread, the largest first. */
export function threadsText(r: WholePollRow): string {
  const names: Record<string, string> = {
    MainThread: "main thread",
    WorkerThread: "decoder thread",
    V8Worker: "V8 helpers (GC)",
    "libuv-worker": "thread pool",
  };
  return Object.entries(r.threads)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${names[name] ?? name} ${ms} ms`)
    .join(", ");
}

/**
 * A goal every row must meet: met when each row's figure is within the limit and its polls succeeded
 * (a failing poll's cost says nothing of a working one's). For a miss, each missing row's reason: its
 * failure if it failed, else `why`.
 */
function perRow(
  goal: string,
  rows: WholePollRow[],
  figure: (r: WholePollRow) => number,
  within: (n: number) => boolean,
  measured: (r: WholePollRow) => string,
  why: (r: WholePollRow) => string,
  extra = "",
): Goal {
  const meets = (r: WholePollRow) => r.ok && within(figure(r));
  const missed = rows.filter((r) => !meets(r));
  return {
    goal,
    measured: rows.length ? rows.map((r) => `${r.wire} ${measured(r)}`).join(", ") + extra : "not measured",
    met: rows.length > 0 && missed.length === 0,
    why: rows.length
      ? missed.map((r) => `${r.wire}: ${r.failure ?? why(r)}`).join(" ")
      : "this size was not measured in this run",
  };
}

export function goals(input: GoalInputs): Goal[] {
  const { whole, goalTargets, largeTargets, stages } = input;
  const at = whole.filter((r) => r.targets === goalTargets);
  const large = whole.filter((r) => r.targets === largeTargets && r.wire === "plain");
  const out: Goal[] = [];
  const G = `${k(goalTargets)} targets`;
  const L = `${k(largeTargets)} targets`;
  const within = (limit: number) => (n: number) => Number.isFinite(n) && n <= limit;
  const over = (r: WholePollRow) =>
    `${f(r.peakRssMB - r.idlePeakRssMB)} MB over an idle daemon's peak (${f(r.idlePeakRssMB)} MB); the exposition is ${f(r.expositionBytes / 1e6)} MB of text.`;

  // CPU per poll.
  const stage = (name: string) => stages.find((s) => s.stage === name)?.cpuMs ?? Number.NaN;
  const parse = stage("JSON.parse (the baseline)");
  const stagesText = Number.isFinite(parse)
    ? ` In one process: scanning ${x(stage("scan only") / parse)} a JSON.parse, summarising ${x((stage("scan and summarise") - stage("scan only")) / parse)}, writing the lines ${x(stage("render lines") / parse)}, gzip of the exposition ${x(stage("gzip the exposition") / parse)}.`
    : "";
  const cpu = perRow(
    `${G}: whole-process CPU per poll ≤ ${GOALS.cpuRatio.toFixed(1)}x a bare JSON.parse of the same bytes`,
    at,
    (r) => r.ratio,
    within(GOALS.cpuRatio),
    (r) =>
      `${x(r.ratio)}, the median of ${r.cyclePollCpuMs.length} cycles' (medians: ${f(r.pollCpuMs)} ms against ${f(r.jsonParseCpuMs)} ms)`,
    (r) => `${threadsText(r)}.`,
  );
  out.push({ ...cpu, why: cpu.met ? "" : cpu.why + stagesText });

  // Memory.
  out.push(
    perRow(
      `${G}: peak RSS (VmHWM) ≤ ${GOALS.peakRssMB} MB`,
      at,
      (r) => r.peakRssMB,
      within(GOALS.peakRssMB),
      (r) => `${f(r.peakRssMB)} MB`,
      over,
    ),
  );
  out.push(
    perRow(
      `${G}: RSS between polls ≤ an idle daemon's + ${GOALS.betweenOverIdleMB} MB`,
      at,
      (r) => r.betweenPollsRssMB - r.idleRssMB,
      within(GOALS.betweenOverIdleMB),
      (r) => `${f(r.betweenPollsRssMB)} MB (idle ${f(r.idleRssMB)} MB)`,
      (r) =>
        `+${f(r.betweenPollsRssMB - r.idleRssMB)} MB; it serves ${f(r.expositionBytes / 1e6)} MB of text (and its gzip), plus what the heap and the allocator keep after a poll.`,
    ),
  );

  // Event loop.
  out.push(
    perRow(
      `${G}: event-loop max ≤ ${GOALS.loopMaxMs} ms`,
      at,
      (r) => r.loopMaxMs,
      within(GOALS.loopMaxMs),
      (r) => `${f(r.loopMaxMs)} ms`,
      (r) =>
        `the main thread spends ${r.threads.MainThread ?? 0} ms per poll; /-/healthy answered within ${f(r.healthyMaxMs)} ms at worst.`,
      at.length ? `; an idle daemon ${f(Math.max(...at.map((r) => r.idleLoopMaxMs)))} ms` : "",
    ),
  );

  // Scrapes.
  const scrapes = input.scrapes;
  if (scrapes === undefined || "failure" in scrapes) {
    out.push({
      goal: `${G}: /metrics p50 ≤ ${GOALS.scrapeP50Ratio}x a bare server with identical bytes, plain and gzip`,
      measured: "not measured",
      met: false,
      why: scrapes?.failure ?? `no size of ${goalTargets} targets in this run`,
    });
  } else {
    const worstRow = scrapes.rows.reduce((a, b) => (b.p50Ratio > a.p50Ratio ? b : a));
    out.push({
      goal: `${G}: /metrics p50 ≤ ${GOALS.scrapeP50Ratio}x a bare server with identical bytes, plain and gzip`,
      measured: `the median of ${scrapes.rounds} alternated rounds' ratios: ${scrapes.rows
        .map((r) => `${r.encoding} ×${r.clients} ${x(r.p50Ratio)} (${r.exporter.p50} ms against ${r.bare.p50} ms)`)
        .join(", ")}`,
      met: scrapes.rows.every((r) => ok(r.p50Ratio, GOALS.scrapeP50Ratio)),
      why: `worst ${worstRow.encoding} with ${worstRow.clients} client(s): ${worstRow.exporter.p50} ms against ${worstRow.bare.p50} ms; p99 ${worstRow.exporter.p99} ms against ${worstRow.bare.p99} ms.`,
    });
  }

  // The large size.
  const big = large[0];
  out.push({
    goal: `${L}, default flags: the poll succeeds and every target is served (promstatus_target_scrape_interval_seconds series: every target has one)`,
    measured: big
      ? `${big.series} of ${big.targets} targets served${big.ok ? `, polls of ${big.pollSeconds.map((s) => `${f(s, 1)} s`).join(", ")}` : ""}`
      : "not measured",
    met: big?.ok ?? false,
    why: big ? (big.failure ?? "") : "this size was not measured in this run",
  });
  out.push(
    perRow(
      `${L}: peak RSS (VmHWM) ≤ ${GOALS.largePeakRssMB} MB`,
      large,
      (r) => r.peakRssMB,
      within(GOALS.largePeakRssMB),
      (r) => `${f(r.peakRssMB)} MB`,
      over,
    ),
  );
  out.push(
    perRow(
      `${L}: /-/healthy answers in < ${GOALS.largeHealthyMs} ms throughout the poll (asked every 20 ms)`,
      large,
      (r) => r.healthyPollMaxMs,
      (n) => Number.isFinite(n) && n < GOALS.largeHealthyMs,
      (r) =>
        `worst ${f(r.healthyPollMaxMs)} ms over ${r.healthyProbes} answers during polls (an idle daemon ${f(r.idleHealthyPollMaxMs)} ms at the same times)`,
      (r) => `event-loop max ${f(r.loopMaxMs)} ms; the main thread spends ${r.threads.MainThread ?? 0} ms per poll.`,
    ),
  );

  // Growth.
  const growth = growthRows(whole);
  const left = [...new Set(whole.filter((r) => r.wire === "plain" && !r.ok).map((r) => k(r.targets)))];
  const rssSlope = slopePer(growth.map((r) => ({ x: r.targets, y: r.peakRssMB })));
  const cpuSlope = slopePer(growth.map((r) => ({ x: r.targets, y: r.pollCpuMs })));
  out.push({
    goal: `Growth: peak RSS and CPU per poll at ${whole
      .filter((r) => r.wire === "plain")
      .map((r) => k(r.targets))
      .join(", ")} targets`,
    measured: `peak RSS ${signed(rssSlope)} MB, CPU per poll ${signed(cpuSlope)} ms per 100k targets (least squares over ${growth.map((r) => k(r.targets)).join(", ")}; chart below)${left.length ? `; ${left.join(", ")} left out: the daemon failed there` : ""}`,
    met: undefined,
    why: "",
  });
  return out;
}

const signed = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : ""}${n.toFixed(0)}` : "–");

/** The rows the growth is drawn from: the default wire (plain on loopback) at every size it worked at. */
export const growthRows = (whole: WholePollRow[]) =>
  whole.filter((r) => r.wire === "plain" && r.ok).sort((a, b) => a.targets - b.targets);

export function goalsTable(input: GoalInputs): string[] {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const status = (met: boolean | undefined) => (met === undefined ? "measured" : met ? "met" : "**missed**");
  return [
    "| goal | this run | | where the cost goes |",
    "|---|---|---|---|",
    ...goals(input).map(
      (g) => `| ${cell(g.goal)} | ${cell(g.measured)} | ${status(g.met)} | ${g.met === false ? cell(g.why) : ""} |`,
    ),
  ];
}
