import { availableParallelism } from "node:os";

/** Defaults, declared once: what a key means when the config file leaves it out. */
export const DEFAULTS = {
  schedule: "*/30 * * * * *",
  timeout: "10s",
  // Bytes read, not memory: a targets answer is streamed, never held whole. Enough for a 1M-target
  // answer (a 500k one is about 380 MB), and still an end to a runaway or a gzip bomb. Answers decoded
  // whole (tsdb, Alertmanager status) are also capped by what the decoder can parse.
  maxResponseSize: "1GiB",
  // Series per answer of a source: none by default. A source is the operator's own server, and what its
  // answer may hold is already bounded by max_response_size and the decoder's memory; a 500k-target
  // Prometheus gives 2.5M series (five per target) and must work with the defaults.
  seriesLimit: 0,
  // Series per answer of a probe module: whoever can reach /probe names the target, and one hostile
  // answer (400k Alertmanager peers) would otherwise serve 400k series. Enough for a 20k-target
  // Prometheus with per-target series, any size without them, and any tsdb limit (4 x 10000 entries).
  moduleSeriesLimit: 100_000,
  tsdb: { enabled: true },
  targets: { enabled: true, per_target: true },
  // Prometheus's other status endpoints, per kind of poller. Small answers (a few KB; config and rules
  // grow with the config and the rule set), read whole. Every source:
  // what tells whether the server is up to date, ready and on time (buildinfo: version; runtimeinfo:
  // reload, start, clock, readiness; walreplay: replay progress, the one endpoint that answers before
  // the server is ready). A source in a group also: what its replicas are compared by (config, rules,
  // flags, features); one not in a group would only gain hashes with nothing to compare them to.
  // Probe modules: none, so a probe stays the two requests it was; a module enables what it wants.
  statusEndpoints: {
    source: {
      buildinfo: true,
      runtimeinfo: true,
      walreplay: true,
      config: false,
      rules: false,
      flags: false,
      features: false,
    },
    groupedSource: {
      buildinfo: true,
      runtimeinfo: true,
      walreplay: true,
      config: true,
      rules: true,
      flags: true,
      features: true,
    },
    module: {
      buildinfo: false,
      runtimeinfo: false,
      walreplay: false,
      config: false,
      rules: false,
      flags: false,
      features: false,
    },
  },
  // The external labels that set the replicas of an HA pair apart, as Thanos and prometheus-operator name them.
  replicaLabels: ["replica", "prometheus_replica"],
} as const;

export const DEFAULT_CONFIG_FILE = "config/exporter.yml";

/**
 * Heap of each decoder thread unless --decoder.memory-limit says otherwise. A quarter of it, 80 MiB, is
 * the most JSON it parses: the benchmark's 100k-target answer is 76 MiB.
 */
export const DEFAULT_DECODER_MEMORY_LIMIT = 320 * 2 ** 20;

/**
 * Probes polling upstreams at once unless --probe.max-concurrent says otherwise: 8 per CPU (16 on two).
 * A probe mostly waits on the network, so several per CPU keep the cores busy; but each holds its
 * answer in memory until one of the (at most two) decoder threads has read it, so more than that only
 * queues answers and grows the heap (16 answers of a 10k-target server are about 130 MB).
 */
export const DEFAULT_PROBE_MAX_CONCURRENT = 8 * availableParallelism();
