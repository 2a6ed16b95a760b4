import { createHash } from "node:crypto";
import { parse } from "yaml";
import { InvalidPayloadError } from "./invalid-payload.js";
import { nestsTooDeeply, YAML_NESTING_LIMIT } from "./yaml-depth.js";

export interface AlertmanagerConfigSummary {
  receivers: number;
  /** Every node of the route tree, the root included. */
  routes: number;
  inhibitRules: number;
  templates: number;
  sha256: string;
}

interface RouteNode {
  routes?: unknown;
}

function countRoutes(node: unknown): number {
  if (node === null || typeof node !== "object") return 0;
  const children = (node as RouteNode).routes;
  const list = Array.isArray(children) ? children : [];
  return 1 + list.reduce<number>((n, child) => n + countRoutes(child), 0);
}

const lengthOf = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** SHA-256 of a configuration text, hex: how replicas' configurations are told apart. */
export function configSha256(original: string): string {
  return createHash("sha256").update(original).digest("hex");
}

/**
 * Counts and hash of Alertmanager's `config.original`. The text itself never leaves this function:
 * Alertmanager leaves some secrets (webhook URLs with tokens) in clear text.
 */
export function summarizeAlertmanagerConfig(original: string): AlertmanagerConfigSummary {
  // Measured first: a deep enough text overflows the parser's stack, and on Node 20 aborts the process.
  if (nestsTooDeeply(original))
    throw new InvalidPayloadError(`config.original is nested more than ${YAML_NESTING_LIMIT} levels deep (not parsed)`);
  let doc: unknown;
  try {
    // logLevel "error": the parser's warnings would reach stderr through process.emitWarning, quoting
    // the text (an unusual tag next to a webhook token), outside the logger.
    doc = parse(original, { logLevel: "error" });
  } catch {
    // The parser's message quotes the offending text, which may be a secret: keep only a position-free reason.
    throw new InvalidPayloadError("config.original is not valid YAML");
  }
  const root = (doc !== null && typeof doc === "object" ? doc : {}) as Record<string, unknown>;
  return {
    receivers: lengthOf(root.receivers),
    routes: countRoutes(root.route),
    inhibitRules: lengthOf(root.inhibit_rules),
    templates: lengthOf(root.templates),
    sha256: configSha256(original),
  };
}
