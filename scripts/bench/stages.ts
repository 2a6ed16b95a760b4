// Where a poll's CPU goes, stage by stage, for one targets answer: the fast path (scanner, the source's
// series kept from the answer before, lines written straight from them) beside the reference path (JSON.parse, schema, samples, renderSampleSet) in the same
// process, warm, median of three; CPU of the whole process (garbage collector threads included, charged
// to the stage that made the garbage). Runs the build (dist/). Prints one JSON object.
// Usage: node --import tsx scripts/bench/stages.ts [--targets=100000]
import { parseArgs } from "node:util";
import { constants, gunzipSync, gzipSync } from "node:zlib";
import { TargetsRounds } from "./generate.js";
import { median } from "./median.js";

const dist = <T>(path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;
const { scanTargetsAnswer } = await dist<typeof import("../../src/upstream/targets/answer-reader.js")>(
  "upstream/targets/answer-reader.js",
);
const { targetsResponse } = await dist<typeof import("../../src/upstream/payloads.js")>("upstream/payloads.js");
const { convertTargets } = await dist<typeof import("../../src/convert/targets.js")>("convert/targets.js");
const { TargetsDecoder } =
  await dist<typeof import("../../src/poll/targets-fast-path.js")>("poll/targets-fast-path.js");
const { renderSampleSet } =
  await dist<typeof import("../../src/exposition/text-format.js")>("exposition/text-format.js");
const { decodeAnswer } = await dist<typeof import("../../src/poll/decode.js")>("poll/decode.js");

const { values } = parseArgs({ options: { targets: { type: "string", default: "100000" } } });
const ROUNDS = 3;

export interface StageRow {
  stage: string;
  path: "both" | "fast" | "reference";
  cpuMs: number;
}

// Rounds as a real Prometheus answers them: each a new order within each pool, times moved (generate.ts).
const rounds = new TargetsRounds(Number(values.targets));
let bytes = rounds.answer(0);
let gz = gzipSync(bytes);
const options = {
  replicaFacts: false,
  perTarget: true,
  limit: undefined,
  targetLabels: [],
  labelPrefix: 'source="bench"',
  maxBytes: 2 ** 30,
};
const extra = { perTarget: true, extraLabels: [] };

const times = new Map<string, number[]>();
const measure = <T>(stage: string, run: () => T): T => {
  const from = process.cpuUsage();
  const out = run();
  const d = process.cpuUsage(from);
  const list = times.get(stage) ?? [];
  list.push((d.user + d.system) / 1000);
  times.set(stage, list);
  return out;
};

// The decoder thread's memory of the source: its series kept from one answer to the next.
let kept: unknown;
const memory = {
  take: () => {
    const value = kept;
    kept = undefined;
    return value;
  },
  keep: (_key: string, value: unknown) => {
    kept = value;
  },
};
{
  // The first answer: every target is new.
  const first = new TargetsDecoder(options, memory);
  first.write(bytes);
  first.finish();
}

for (let round = 0; round < ROUNDS; round++) {
  bytes = rounds.answer(round + 1);
  gz = gzipSync(bytes);
  measure("gunzip the answer", () => gunzipSync(gz));
  measure("JSON.parse (the baseline)", () => JSON.parse(bytes.toString("utf8")));
  // The scanner alone: every target read (only its converted fields) and handed to no one.
  measure("scan only", () => scanTargetsAnswer(bytes, ["job", "instance"], () => {}));
  // Fast path: the scanner hands each target to the summary as it reads it, the series known from the
  // answer before; then the lines are written (each family whole, unpacked).
  const decoder = new TargetsDecoder(options, memory);
  measure("scan and summarise", () => decoder.write(bytes));
  const rendered = measure("render lines", () => decoder.finish());
  if (!rendered) throw new Error("the scanner gave up on the benchmark's answer");
  // Reference path.
  const json = measure("decode UTF-8 and JSON.parse", () => JSON.parse(bytes.toString("utf8")) as unknown);
  const checked = measure("schema", () => targetsResponse.parse(json));
  const samples = measure("convert to samples", () => convertTargets(checked, extra));
  measure("renderSampleSet", () => renderSampleSet(samples, options.labelPrefix));
  // Once per change, in the thread pool: what a gzip scrape needs.
  measure("gzip the exposition", () =>
    rendered.families.map(([, lines]) => gzipSync(lines, { level: constants.Z_BEST_SPEED })),
  );
  // Whole decodes of the gzipped answer, as a whole-answer decoder thread runs them (no series kept).
  const job = { endpoint: "targets" as const, body: gz, encoding: "gzip", options };
  measure("whole decode, fast path", () => decodeAnswer(job));
  measure("whole decode, reference path", () => decodeAnswer(job, { reference: true }));
}

const PATHS: Record<string, StageRow["path"]> = {
  "scan only": "fast",
  "scan and summarise": "fast",
  "render lines": "fast",
  "whole decode, fast path": "fast",
  "decode UTF-8 and JSON.parse": "reference",
  schema: "reference",
  "convert to samples": "reference",
  renderSampleSet: "reference",
  "whole decode, reference path": "reference",
};
const rows: StageRow[] = [...times].map(([stage, list]) => ({
  stage,
  path: PATHS[stage] ?? "both",
  cpuMs: Math.round(median(list)),
}));
process.stdout.write(
  `${JSON.stringify({ node: process.version, targets: Number(values.targets), answerBytes: bytes.length, rows })}\n`,
);
