import { availableParallelism } from "node:os";

/** Defaults, declared once: what a key means when the config file leaves it out. */
export const DEFAULTS = {
  schedule: "*/30 * * * * *",
  timeout: "10s",
  // Enough for a 100k-target answer (about 80 MB), small enough to stop a runaway or a gzip bomb.
  maxResponseSize: "256MiB",
  tsdb: { enabled: true },
  targets: { enabled: true, per_target: true },
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
