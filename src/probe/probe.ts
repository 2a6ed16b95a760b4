import { flavorFits } from "../config/flavors.js";
import { redactUrl } from "../config/redact-url.js";
import { type Endpoint, endpointsOf, type ModuleConfig, type SourceConfig } from "../config/types.js";
import { plainText } from "../exposition/unpack.js";
import { probeDecodePool } from "../poll/decode-pool.js";
import { requestUrl } from "../poll/endpoints.js";
import { pollClue } from "../poll/flavor-clues.js";
import { failWhereNoneAnswered } from "../poll/none-answered.js";
import { type PollOutcome, pollEndpoint } from "../poll/poll-endpoint.js";
import { assembleExposition } from "../publish/render.js";
import { applyOutcome, type EndpointState, type SourceState } from "../publish/source-state.js";
import { plainUrl, withDefaultScheme, withoutTrailingSlashes } from "../upstream/plain-url.js";
import { onlyWithPath, targetAllowed } from "../upstream/url-patterns.js";
import { PROBE_EXPOSITION_BYTES, withinExpositionBudget } from "./exposition-budget.js";

// The multi-target pattern of blackbox_exporter: Prometheus discovers the upstreams and scrapes
// /probe?target=<base URL>&module=<name>; the exporter polls that upstream while it is scraped.

export interface ProbeRequest {
  target: unknown;
  module: unknown;
  /** X-Prometheus-Scrape-Timeout-Seconds, as sent by Prometheus. */
  scrapeTimeoutSeconds: string | undefined;
}

/** A request /probe can honour: the module it names and the target, checked. */
export interface ValidProbe {
  module: ModuleConfig;
  /**
   * The target as it is fetched (plain-url.ts `base`: scheme and host lower case, no default port, no
   * trailing slashes): spellings of one URL share a poll, a min_interval result and a `source` label.
   */
  target: string;
}

/** The result of a probe that ran: what each endpoint answered, and the families to serve. */
export interface ProbeRun {
  module: ModuleConfig;
  /** The target with its password redacted: the `source` label and what logs and pages show. */
  target: string;
  startedAt: number;
  durationSeconds: number;
  timeoutMs: number;
  /** Why the poll had that budget. */
  timeoutSource: string;
  /** Each endpoint's request URL (redacted) and outcome, in poll order. */
  endpoints: { endpoint: Endpoint; url: string; outcome: PollOutcome }[];
  /** The source state its answer was built from: what the next probe of the target goes on from. */
  state: SourceState;
  exposition: Buffer;
}

// The target is the `source` label of every series a probe serves: a caller's 16 KB target made a
// 5k-target answer 391 MB of text. Base URLs of real servers are far shorter.
const MAX_TARGET_LENGTH = 1024;

/** Checks a /probe request: the module and target it names, or why it cannot be honoured (a 400). */
export function validateProbe(modules: ReadonlyMap<string, ModuleConfig>, request: ProbeRequest): ValidProbe | string {
  const { target, module: moduleName } = request;
  if (typeof target !== "string" || target === "") return "target parameter is missing";
  if (target.length > MAX_TARGET_LENGTH) return `target is longer than ${MAX_TARGET_LENGTH} characters`;
  const known = () => `known modules: ${[...modules.keys()].join(", ")}`;
  if (typeof moduleName !== "string" || moduleName === "") return `module parameter is missing; ${known()}`;
  const module = modules.get(moduleName);
  if (!module) return `unknown module "${moduleName}"; ${known()}`;
  // Quoted as it would be fetched: a password in `user:pw@host` is then seen as one, and redacted.
  const fetched = withDefaultScheme(target);
  const plain = plainUrl(fetched);
  if (typeof plain === "string") return `${plain}: "${redactUrl(fetched)}"`;
  const patterns = module.allowedTargets;
  if (patterns.length > 0 && !targetAllowed(patterns, plain)) {
    const hint = onlyWithPath(patterns, plain) ? " (a pattern that allows a path names it as optional: (/path)?)" : "";
    return `target "${redactUrl(fetched)}" is not in allowed_targets of module "${moduleName}"${hint}`;
  }
  return { module, target: plain.base };
}

/**
 * The poll budget: the module's timeout, or less if Prometheus will give up sooner (its scrape
 * timeout minus an offset for the way back), as blackbox_exporter does.
 */
export function probeTimeoutMs(moduleTimeoutMs: number, header: string | undefined, offsetMs: number): number {
  const seconds = header === undefined ? Number.NaN : Number(header);
  if (!Number.isFinite(seconds) || seconds <= 0) return moduleTimeoutMs;
  return Math.max(1, Math.min(moduleTimeoutMs, seconds * 1000 - offsetMs));
}

/**
 * The source a probe polls: the module's settings, the target's URL, `source` the target (as fetched, once checked).
 * A checked target is fetched as the parser reads it (plain-url.ts), the URL allowed_targets judged;
 * redirects stay within allowed_targets too.
 */
export function probeSource(module: ModuleConfig, target: string, timeoutMs: number): SourceConfig {
  return {
    name: redactUrl(target),
    kind: module.kind,
    ...(module.flavor === undefined ? {} : { flavor: module.flavor }),
    ...(module.group === undefined ? {} : { group: module.group }),
    url: withoutTrailingSlashes(target),
    labels: {},
    schedule: "",
    timeoutMs,
    maxResponseBytes: module.maxResponseBytes,
    seriesLimit: module.seriesLimit,
    tsdb: module.tsdb,
    targets: module.targets,
    config: module.config,
    rules: module.rules,
    flags: module.flags,
    runtimeinfo: module.runtimeinfo,
    buildinfo: module.buildinfo,
    walreplay: module.walreplay,
    features: module.features,
    replicaLabels: module.replicaLabels,
    http: module.allowedTargets.length > 0 ? { ...module.http, redirectTargets: module.allowedTargets } : module.http,
  };
}

/**
 * Polls every endpoint of the target's kind now, each within the time budget, and builds the answer
 * if its series fit in `maxExpositionBytes` (the largest endpoints fail as too_large otherwise). Never throws.
 */
export async function runProbe(
  { module, target }: ValidProbe,
  scrapeTimeoutSeconds: string | undefined,
  offsetMs: number,
  maxExpositionBytes = PROBE_EXPOSITION_BYTES,
  /** The endpoints' states after the target's last probe (probe-memory.ts): counters go on from them. */
  before?: ReadonlyMap<Endpoint, EndpointState>,
): Promise<ProbeRun> {
  const timeoutMs = probeTimeoutMs(module.timeoutMs, scrapeTimeoutSeconds, offsetMs);
  const timeoutSource =
    timeoutMs < module.timeoutMs
      ? `X-Prometheus-Scrape-Timeout-Seconds ${scrapeTimeoutSeconds} minus --probe.timeout-offset ${offsetMs / 1000}s`
      : "the module's timeout";
  const source = probeSource(module, target, timeoutMs);
  const startedAt = Date.now();
  const started = performance.now();
  const asked = endpointsOf(source);
  const outcomes = failWhereNoneAnswered(
    await Promise.all(asked.map((endpoint) => pollEndpoint(source, endpoint, undefined, probeDecodePool))),
  );
  const polled = asked.map((endpoint, i) => ({
    endpoint,
    url: redactUrl(requestUrl(source, endpoint)),
    outcome: outcomes[i] as PollOutcome,
  }));
  const endpoints = withinExpositionBudget(polled, maxExpositionBytes);
  const state: SourceState = {
    config: source,
    endpoints: new Map(
      endpoints.map(({ endpoint, outcome }) => [endpoint, applyOutcome(before?.get(endpoint), outcome)]),
    ),
  };
  // Without a configured flavor, the probe's own answers tell it, for its info series only: a probe
  // keeps only counters from one to the next, so its answers were read with the rules of every flavor.
  const told = pollClue(polled.map(({ endpoint, outcome }) => ({ endpoint, clue: outcome.clue })))?.flavor;
  if (source.flavor === undefined && told !== undefined && flavorFits(source.kind, told)) state.flavor = told;
  return {
    module,
    target: source.name,
    startedAt,
    durationSeconds: (performance.now() - started) / 1000,
    timeoutMs,
    timeoutSource,
    endpoints,
    state,
    // Served whole (and quoted by the debug answer): a large family the decoder packed is inflated here.
    exposition: await plainText(assembleExposition([state])),
  };
}
