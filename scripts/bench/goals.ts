// The goals of issue 12 against one run's figures: each met or missed, and where a missed one's cost
// goes, from the same run's per-thread and per-stage figures.
import type { StageRow } from "./stages.js";
import type { WatchedServerRow } from "./watched-server.js";
import type { WholePollRow } from "./whole-poll.js";

export interface ScrapeFigure {
  targets: number;
  encoding: "plain" | "gzip";
  bareP50: number;
  exporterP50: number;
  ratio: number;
}

export interface GoalInputs {
  whole: WholePollRow[];
  stages: StageRow[];
  scrapes: ScrapeFigure[];
  /** Worst event-loop delay per size, during polls and under scrape load (ms). */
  loopMaxMs: number[];
  /** Size of the plain exposition at the whole-poll's target count (bytes). */
  expositionBytes: number;
  watched: WatchedServerRow[];
}

const MIB = 2 ** 20;
const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const status = (met: boolean) => (met ? "met" : "**missed**");

/** How the answer came over the wire, as the tables say it. */
export const wireName = (r: WholePollRow) => (r.compression === "gzip" ? "gzip" : "plain");

export function goalsTable(input: GoalInputs): string[] {
  const { whole, stages, scrapes, watched } = input;
  const stage = (name: string) => stages.find((s) => s.stage === name)?.cpuMs ?? Number.NaN;
  const parse = stage("JSON.parse (the baseline)");
  const scanOnly = stage("scan only");

  const cpuMet = whole.every((r) => r.ratio <= 2);
  const cpuFigure = whole
    .map(
      (r) =>
        `${x(r.ratio)} ${wireName(r)} (${r.pollCpuMs.toFixed(0)} ms per poll against ${r.jsonParseCpuMs.toFixed(0)})`,
    )
    .join(", ");
  const threads = whole
    .map((r) => {
      const t = (name: string) => r.threads[name] ?? 0;
      return `${wireName(r)}: decoder thread ${t("WorkerThread")} ms, V8's helper threads (GC) ${t("V8Worker")} ms, main thread ${t("MainThread")} ms, thread pool ${t("libuv-worker")} ms`;
    })
    .join("; ");
  const cpuWhy = `${threads}. In one process, scanning alone is ${x(scanOnly / parse)} a JSON.parse, summarising the targets ${x((stage("scan and summarise") - scanOnly) / parse)}, writing the lines ${x(stage("render lines") / parse)}`;

  const peakMet = whole.every((r) => r.peakRssMiB * MIB <= 250e6);
  const peakFigure = whole.map((r) => `${r.peakRssMiB} MiB ${wireName(r)}`).join(", ");
  const answer = whole[0]?.answerBytes ?? 0;
  const idle = Math.max(...whole.map((r) => r.idleRssMiB));
  const peakWhy = `the ${mb(answer)} MB answer is whole in memory while the decoder's heap, the new lines (${mb(input.expositionBytes)} MB) and the exposition still served coexist, on top of ${idle} MiB for an idle daemon`;

  const betweenMet = whole.every((r) => r.betweenPollsRssMiB <= 1.5 * r.idleRssMiB);
  const betweenFigure = whole.map((r) => `${r.betweenPollsRssMiB} MiB ${wireName(r)}`).join(", ");
  const betweenWhy = `it holds the published exposition (${mb(input.expositionBytes)} MB of text and its gzip) and memory it freed but did not give back to the system`;

  const worstScrape = scrapes.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const bestScrape = scrapes.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const scrapeMet = worstScrape.ratio <= 1.25;
  const scrapeWhy = `worst at ${worstScrape.targets} targets, ${worstScrape.encoding}: ${worstScrape.exporterP50} ms against ${worstScrape.bareP50} ms`;

  const loopWorst = Math.max(...input.loopMaxMs);

  const watchedFigure = watched
    .map((r) => `${r.prometheusCpuMsPerPoll.toFixed(0)} ms ${r.encoding === "gzip" ? "with gzip" : "without"}`)
    .join(", ");

  const row = (goal: string, figure: string, met: boolean | undefined, why: string) =>
    `| ${goal} | ${figure} | ${met === undefined ? "measured" : status(met)} | ${met ? "" : why} |`;
  return [
    "| goal (issue 12) | this run | | where the cost goes |",
    "|---|---|---|---|",
    row("whole-poll CPU ≤ 2.0x a bare JSON.parse", cpuFigure, cpuMet, cpuWhy),
    row("peak RSS ≤ 250 MB", peakFigure, peakMet, peakWhy),
    row(`RSS between polls ≤ 1.5x an idle daemon's (${idle} MiB)`, betweenFigure, betweenMet, betweenWhy),
    row(
      "/metrics p50 ≤ 1.25x the bare server, plain and gzip",
      `${x(bestScrape.ratio)} to ${x(worstScrape.ratio)} over every size`,
      scrapeMet,
      scrapeWhy,
    ),
    row("no event-loop stall over 50 ms", `worst ${loopWorst} ms`, loopWorst <= 50, "see the tables below"),
    row(`CPU of the watched Prometheus per poll, ${watched[0]?.targets} targets`, watchedFigure, undefined, ""),
  ];
}
