// Where a poll's CPU goes, stage by stage, for one targets answer: the fast path (scanner, summary,
// direct rendering) beside the reference path (JSON.parse, schema, samples, renderSampleSet) in the same
// process, warm, median of three; CPU of the whole process (garbage collector threads included, charged
// to the stage that made the garbage). Runs the build (dist/). Prints one JSON object.
// Usage: node --import tsx scripts/bench/stages.ts [--targets=100000]
import { parseArgs } from "node:util";
import { constants, gunzipSync, gzipSync } from "node:zlib";
import { targetsAnswer } from "./generate.js";

const dist = <T>(path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;
const { scanTargetsAnswer } =
  await dist<typeof import("../../src/upstream/targets-scanner.js")>("upstream/targets-scanner.js");
const { targetsResponse } = await dist<typeof import("../../src/upstream/payloads.js")>("upstream/payloads.js");
const { convertTargets, TargetSummariser } =
  await dist<typeof import("../../src/convert/targets.js")>("convert/targets.js");
const { renderTargets } =
  await dist<typeof import("../../src/exposition/target-lines.js")>("exposition/target-lines.js");
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const bytes = Buffer.from(targetsAnswer(Number(values.targets)));
const gz = gzipSync(bytes);
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

for (let round = 0; round < ROUNDS; round++) {
  measure("gunzip the answer", () => gunzipSync(gz));
  measure("JSON.parse (the baseline)", () => JSON.parse(bytes.toString("utf8")));
  // The scanner alone: every target read (only its converted fields) and handed to no one.
  measure("scan only", () => scanTargetsAnswer(bytes, ["job", "instance"], () => {}));
  // Fast path: the scanner hands each target to the summary as it reads it.
  const summariser = new TargetSummariser(extra);
  const scanned = measure("scan and summarise", () =>
    scanTargetsAnswer(bytes, ["job", "instance"], (t) => summariser.add(t.toActiveTarget())),
  );
  if (!scanned) throw new Error("the scanner gave up on the benchmark's answer");
  const rendered = measure("render lines", () => renderTargets(summariser.finish(scanned.data), options.labelPrefix));
  // Reference path.
  const json = measure("decode UTF-8 and JSON.parse", () => JSON.parse(bytes.toString("utf8")) as unknown);
  const checked = measure("schema", () => targetsResponse.parse(json));
  const samples = measure("convert to samples", () => convertTargets(checked, extra));
  measure("renderSampleSet", () => renderSampleSet(samples, options.labelPrefix));
  // Once per change, in the thread pool: what a gzip scrape needs.
  measure("gzip the exposition", () =>
    rendered.families.map(([, lines]) => gzipSync(lines, { level: constants.Z_BEST_SPEED })),
  );
  // Whole decodes of the gzipped answer, as the decoder thread runs them.
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
