import { redactUrl } from "../config/redact-url.js";
import { endpointsOf, type ModuleConfig, type SourceConfig } from "../config/types.js";
import { pollEndpoint } from "../poll/poll-endpoint.js";
import { assembleExposition } from "../publish/render.js";
import { applyOutcome, type SourceState } from "../publish/source-state.js";

// The multi-target pattern of blackbox_exporter: Prometheus discovers the upstreams and scrapes
// /probe?target=<base URL>&module=<name>; the exporter polls that upstream while it is scraped.

export type ProbeAnswer = { status: 200; exposition: Buffer } | { status: 400; message: string };

export interface ProbeRequest {
  target: unknown;
  module: unknown;
  /** X-Prometheus-Scrape-Timeout-Seconds, as sent by Prometheus. */
  scrapeTimeoutSeconds: string | undefined;
}

const refuse = (message: string): ProbeAnswer => ({ status: 400, message });

/** The target as a base URL, or why it is not one. */
function baseUrl(target: string): URL | string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "target is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "target must be an http or https URL";
  if (url.search || url.hash) return "target must be a base URL without query or fragment";
  return url;
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

/** The source a probe polls: the module's settings, the target's URL, `source` the target as given. */
function probeSource(module: ModuleConfig, target: string, timeoutMs: number): SourceConfig {
  return {
    name: redactUrl(target),
    kind: module.kind,
    ...(module.group === undefined ? {} : { group: module.group }),
    url: target.replace(/\/+$/, ""),
    labels: {},
    schedule: "",
    timeoutMs,
    maxResponseBytes: module.maxResponseBytes,
    tsdb: module.tsdb,
    targets: module.targets,
    http: module.http,
  };
}

/** Runs one probe: 400 for a request it cannot honour, else 200 with the families of the target. */
export async function probe(
  modules: ReadonlyMap<string, ModuleConfig>,
  request: ProbeRequest,
  offsetMs: number,
): Promise<ProbeAnswer> {
  const { target, module: moduleName } = request;
  if (typeof target !== "string" || target === "") return refuse("target parameter is missing");
  const name = typeof moduleName === "string" && moduleName !== "" ? moduleName : undefined;
  if (name === undefined) return refuse("module parameter is missing");
  const module = modules.get(name);
  if (!module) return refuse(`unknown module "${name}"`);
  const url = baseUrl(target);
  if (typeof url === "string") return refuse(`${url}: "${redactUrl(target)}"`);
  if (module.allowedTargets.length > 0 && !module.allowedTargets.some((re) => re.test(target))) {
    return refuse(`target "${redactUrl(target)}" is not in allowed_targets of module "${name}"`);
  }
  const source = probeSource(module, target, probeTimeoutMs(module.timeoutMs, request.scrapeTimeoutSeconds, offsetMs));
  const endpoints = endpointsOf(source);
  const polled = await Promise.all(
    endpoints.map(async (e) => [e, applyOutcome(undefined, await pollEndpoint(source, e))] as const),
  );
  const state: SourceState = { config: source, endpoints: new Map(polled) };
  return { status: 200, exposition: Buffer.concat(assembleExposition([state])) };
}

/**
 * Probes with identical probes in flight sharing one poll: the two Prometheus servers of an HA pair
 * probing one target at the same moment cost the upstream one request, not two.
 */
export class Prober {
  private readonly inFlight = new Map<string, Promise<ProbeAnswer>>();

  constructor(
    private readonly modules: () => ReadonlyMap<string, ModuleConfig>,
    private readonly offsetMs: number,
  ) {}

  probe(request: ProbeRequest): Promise<ProbeAnswer> {
    const key = `${String(request.module)}\0${String(request.target)}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const answer = probe(this.modules(), request, this.offsetMs).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, answer);
    return answer;
  }
}
