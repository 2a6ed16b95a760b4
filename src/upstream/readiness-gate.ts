import type { PollError } from "./poll-error.js";

// web/web.go, testReady (v2.42.0 through v3.14.0): until a Prometheus is ready (TSDB opened, WAL
// replayed, config loaded) and again while it stops, every /api/v1 endpoint but walreplay answers 503
// with exactly this text (api.go: Register wraps them in api.ready, which is testReady).
const NOT_READY_TEXT = "Service Unavailable";

/** The answer of a Prometheus that is not ready yet: not a blip worth another try, nor a broken server. */
export const isReadinessGate = (error: PollError) => error.status === 503 && error.upstreamText === NOT_READY_TEXT;
