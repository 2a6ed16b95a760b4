import { validateDetailed } from "node-cron";
import { z } from "zod";
import { parseDuration } from "./duration.js";
import { FLAVORS, FLAVORS_OF_KIND, type Flavor } from "./flavors.js";
import { httpClientFields } from "./http-client-schema.js";
import { LABEL_NAME, RESERVED_LABELS, servedLabelName } from "./labels.js";
import { typeError } from "./messages.js";
import { redactUnparsedUrl } from "./redact-url.js";
import { parseSize } from "./size.js";
import { probableBaseUrl } from "./url-hint.js";

/** The largest tsdb `limit` every Prometheus accepts. */
export const TSDB_LIMIT_MAX = 10_000;

// The config file's schema: strict objects (unknown keys are errors), one message per rule.

const duration = z
  .string({
    // YAML reads `interval: 30` as a number: the unit is what is missing.
    error: (issue) =>
      typeof issue.input === "number"
        ? `must be a duration with its unit, such as ${issue.input}s (got the number ${issue.input})`
        : typeError("must be a duration such as 500ms, 10s or 1m")(issue),
  })
  .superRefine((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined)
      ctx.addIssue({ code: "custom", message: `invalid duration "${text}" (expected e.g. 500ms, 10s, 1m)` });
    else if (ms <= 0) ctx.addIssue({ code: "custom", message: "must be greater than 0" });
  });

const size = z.string({ error: typeError("must be a size such as 64MiB") }).superRefine((text, ctx) => {
  const bytes = parseSize(text);
  if (bytes === undefined) {
    ctx.addIssue({ code: "custom", message: `invalid size "${text}" (expected e.g. 512KiB, 64MiB, 1GB)` });
  } else if (bytes <= 0) ctx.addIssue({ code: "custom", message: "must be greater than 0" });
});

// Series one answer may give, as Prometheus's sample_limit: 0 is no limit.
const seriesLimit = z
  .number({ error: typeError("must be a number of series (0 for no limit)") })
  .int({ error: "must be a whole number" })
  .nonnegative({ error: "must be 0 (no limit) or more" });

const cronExpression = z.string({ error: typeError("must be a cron expression string") }).superRefine((text, ctx) => {
  const result = validateDetailed(text);
  if (!result.valid) {
    const why = result.errors.map((e) => e.message).join("; ");
    ctx.addIssue({ code: "custom", message: `invalid cron expression "${text}": ${why || "unparseable"}` });
  }
});

// setInterval waits at most 2^31-1 ms; a longer interval would fire at once, again and again.
const INTERVAL_MAX_MS = 24 * 86_400_000;

// Every so long from the first poll at start, as Prometheus's scrape_interval; the alternative to a cron schedule.
const interval = duration.superRefine((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) return; // said by duration
  if (ms < 1000) ctx.addIssue({ code: "custom", message: "must be at least 1s" });
  else if (ms > INTERVAL_MAX_MS) ctx.addIssue({ code: "custom", message: "must be at most 24d" });
});

const oneSchedule = (s: { schedule?: unknown; interval?: unknown }) =>
  s.schedule === undefined || s.interval === undefined;
const oneScheduleMessage = {
  error: "at most one of schedule (a cron expression) and interval may be set",
  path: ["interval"],
};

/** Text without `scheme://` that is a URL once `http://` goes before it ("prometheus:9090"). */
const withoutScheme = (text: string) => !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) && URL.canParse(`http://${text}`);

const hasSpaceOrControl = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) <= 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
};

/** Why text that is no URL is none, for the message; "" when no more is known. */
function whyInvalidUrl(text: string): string {
  const port = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/.exec(text)?.[1];
  if (port !== undefined && Number(port) > 65535) return `: port ${port} is out of range (at most 65535)`;
  return "";
}

/** "http:/prom:9090", "http//prom:9090": an http(s) scheme whose "://" lost a character. */
const MISTYPED_SEPARATOR = /^(https?)(?::\/?|\/\/)(?!\/)/i;

const httpUrl = z.string({ error: typeError("must be a URL string") }).superRefine((text, ctx) => {
  if (withoutScheme(text)) {
    // Redacted as the URL it would be: without a scheme, credentials are not known to be any.
    const mistyped = MISTYPED_SEPARATOR.exec(text);
    if (mistyped) {
      const rest = redactUnparsedUrl(`http://${text.slice(mistyped[0].length)}`).slice("http://".length);
      const [given, use] = [`${mistyped[0]}${rest}`, `${mistyped[1]?.toLowerCase()}://${rest}`];
      ctx.addIssue({ code: "custom", message: `invalid URL "${given}": the scheme needs "://"; use "${use}"` });
      return;
    }
    const use = redactUnparsedUrl(`http://${text}`);
    ctx.addIssue({ code: "custom", message: `invalid URL "${use.slice("http://".length)}": no scheme; use "${use}"` });
    return;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // An unparseable URL may still carry a password: never echo it.
    ctx.addIssue({ code: "custom", message: `invalid URL "${redactUnparsedUrl(text)}"${whyInvalidUrl(text)}` });
    return;
  }
  // The URL parser drops spaces and control characters at the ends (and tabs and newlines anywhere),
  // while requests are made from the text as written: a trailing space (from an environment variable,
  // say) would make every request URL invalid. Said here, with the text quoted so the space shows.
  if (hasSpaceOrControl(text)) {
    const quoted = JSON.stringify(redactUnparsedUrl(text));
    ctx.addIssue({ code: "custom", message: `URL must not contain spaces or control characters: ${quoted}` });
    return;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    ctx.addIssue({ code: "custom", message: `URL scheme must be http or https, got "${url.protocol.slice(0, -1)}"` });
  } else if (url.search || url.hash || /[?#]/.test(text)) {
    // An empty query or fragment ("/?", "/#") parses to none, but would still end the text requests are made from.
    // A web UI address (Alertmanager's /#/alerts): the fragment would be dropped from every request.
    ctx.addIssue({
      code: "custom",
      message: `URL must be a base URL without query or fragment; use "${probableBaseUrl(url)}"`,
    });
  }
});

const labelName = z.string().superRefine((name, ctx) => {
  if (!LABEL_NAME.test(name)) ctx.addIssue({ code: "custom", message: `invalid label name "${name}"` });
  else if (name.startsWith("__"))
    ctx.addIssue({ code: "custom", message: `label name "${name}" is reserved (starts with __)` });
  else if (RESERVED_LABELS.has(name))
    ctx.addIssue({ code: "custom", message: `label name "${name}" is used by the exporter's own series` });
});

// Any target label name, Prometheus 3.x's UTF-8 names included; it is served under `servedLabelName`.
const targetLabelName = z
  .string({ error: typeError("must be a label name string") })
  .min(1, { error: "must not be empty" })
  .superRefine((name, ctx) => {
    const as = servedLabelName(name);
    if (name.startsWith("__"))
      ctx.addIssue({ code: "custom", message: `label name "${name}" is internal to Prometheus (starts with __)` });
    else if (["scrape_pool", "job", "instance"].includes(as))
      ctx.addIssue({ code: "custom", message: `"${as}" is already on every per-target series` });
    else if (RESERVED_LABELS.has(as))
      ctx.addIssue({ code: "custom", message: `label name "${as}" is used by the exporter's own series` });
  });

const tsdbSettings = z
  .strictObject({
    enabled: z.boolean().optional(),
    limit: z
      .number()
      .int({ error: "must be a whole number" })
      .positive({ error: "must be at least 1" })
      // Prometheus 3.9+ refuses more (web/api/v1/api.go, maxTSDBLimit) with bad_data.
      .max(TSDB_LIMIT_MAX, { error: `must be at most ${TSDB_LIMIT_MAX} (Prometheus 3.9+ refuses more)` })
      .optional(),
  })
  .optional();

const targetsSettings = z
  .strictObject({
    enabled: z.boolean().optional(),
    per_target: z.boolean().optional(),
    labels: z.array(targetLabelName, { error: typeError("must be a list of target label names") }).optional(),
  })
  .optional();

const switchOnly = z.strictObject({ enabled: z.boolean().optional() }).optional();

const flagsSettings = z
  .strictObject({
    enabled: z.boolean().optional(),
    // Flag names as Prometheus lists them (without the leading --): left out of the flag hash.
    ignore: z
      .array(z.string().min(1, { error: "must not be empty" }), { error: typeError("must be a list of flag names") })
      .optional(),
  })
  .optional();

// Prometheus's status endpoints besides tsdb and targets, each switched on or off (defaults.ts).
const statusEndpointSettings = {
  config: switchOnly,
  rules: switchOnly,
  flags: flagsSettings,
  runtimeinfo: switchOnly,
  buildinfo: switchOnly,
  walreplay: switchOnly,
  features: switchOnly,
};

// External label names that tell the replicas of an HA pair apart: left out of the config hash.
const replicaLabels = z
  .array(z.string().min(1, { error: "must not be empty" }), { error: typeError("must be a list of label names") })
  .optional();

// The server behind the API (convert/flavor.ts): auto detects it from its answers.
const flavorValues = (flavors: readonly Flavor[]) => ["auto", ...flavors].join(", ");

/** Why a flavor does not fit a kind (which kind it belongs to), and what fits this one. */
export function flavorMismatch(kind: "prometheus" | "alertmanager", flavor: string): { why: string; fits: string } {
  const fits = `for kind ${kind}: ${flavorValues(FLAVORS_OF_KIND[kind])}`;
  if (kind === "prometheus" && flavor === "mimir")
    return {
      why: `flavor mimir does not fit kind prometheus: Mimir has no scrape targets (poll its Alertmanager as kind: alertmanager)`,
      fits,
    };
  if (kind === "alertmanager" && (FLAVORS as readonly string[]).includes(flavor))
    return {
      why: `flavor ${flavor} does not fit kind alertmanager: it serves no Alertmanager API (/api/v2/status)`,
      fits,
    };
  return { why: `unknown flavor "${flavor}"`, fits };
}

const flavorOf = (kind: "prometheus" | "alertmanager") =>
  z
    .string({ error: typeError(`must be a string: ${flavorValues(FLAVORS_OF_KIND[kind])}`) })
    .superRefine((text, ctx) => {
      if (text !== "auto" && !(FLAVORS_OF_KIND[kind] as readonly string[]).includes(text))
        ctx.addIssue({ code: "custom", message: Object.values(flavorMismatch(kind, text)).join("; ") });
    })
    .optional();

// global.flavor: any flavor; each source that takes it must be of a kind it fits (checked below).
const anyFlavor = z.enum(["auto", ...FLAVORS], { error: `must be one of ${flavorValues(FLAVORS)}` }).optional();

const staticLabels = z.record(
  labelName,
  z.string({
    error: (issue) =>
      ["number", "boolean"].includes(typeof issue.input)
        ? `label values must be strings: quote it, "${String(issue.input)}" (YAML reads it unquoted as a ${typeof issue.input})`
        : "label values must be strings",
  }),
);

const groupName = z.string({ error: typeError("must be a string") }).min(1, { error: "must not be empty" });

const common = {
  name: z.string({ error: typeError("must be a string") }).min(1, { error: "must not be empty" }),
  // Replicas of one service (an Alertmanager cluster, an HA Prometheus pair), compared with each other.
  group: groupName.optional(),
  url: httpUrl,
  labels: staticLabels.optional(),
  schedule: cronExpression.optional(),
  interval: interval.optional(),
  timeout: duration.optional(),
  max_response_size: size.optional(),
  series_limit: seriesLimit.optional(),
  ...httpClientFields,
};

const oneAuthMethod = (s: { basic_auth?: unknown; authorization?: unknown }) =>
  s.basic_auth === undefined || s.authorization === undefined;
const oneAuthMessage = { error: "at most one of basic_auth and authorization may be set", path: ["authorization"] };

const prometheusSource = z
  .strictObject({
    ...common,
    kind: z.literal("prometheus"),
    flavor: flavorOf("prometheus"),
    tsdb: tsdbSettings,
    targets: targetsSettings,
    ...statusEndpointSettings,
    replica_labels: replicaLabels,
  })
  .refine(oneAuthMethod, oneAuthMessage)
  .refine(oneSchedule, oneScheduleMessage)
  .superRefine((s, ctx) => {
    // Copied target labels sit beside the static labels on the same series: no name twice.
    const served = new Map<string, string>();
    (s.targets?.labels ?? []).forEach((name, i) => {
      const as = servedLabelName(name);
      const path = ["targets", "labels", i];
      const clash = served.get(as);
      if (clash !== undefined)
        ctx.addIssue({ code: "custom", path, message: `"${name}" and "${clash}" are both served as "${as}"` });
      else if (s.labels && as in s.labels)
        ctx.addIssue({ code: "custom", path, message: `"${as}" is also a static label of this source` });
      served.set(as, name);
    });
  });

// Keys of a Prometheus source or module, refused on an Alertmanager one with a message that says so.
const prometheusOnly = (key: string, what: string) =>
  z.undefined({ error: `${key} applies to prometheus ${what} only; this one is kind: alertmanager` }).optional();

const prometheusOnlyKeys = (what: string) =>
  Object.fromEntries(
    [...Object.keys(statusEndpointSettings), "replica_labels"].map((key) => [key, prometheusOnly(key, what)]),
  );

const alertmanagerSource = z
  .strictObject({
    ...common,
    kind: z.literal("alertmanager"),
    flavor: flavorOf("alertmanager"),
    tsdb: prometheusOnly("tsdb", "sources"),
    targets: prometheusOnly("targets", "sources"),
    ...prometheusOnlyKeys("sources"),
  })
  .refine(oneAuthMethod, oneAuthMessage)
  .refine(oneSchedule, oneScheduleMessage);

const source = z.discriminatedUnion("kind", [prometheusSource, alertmanagerSource], {
  error: (issue) => (issue.code === "invalid_union" ? 'kind must be "prometheus" or "alertmanager"' : undefined),
});

type RawSourceShape = z.infer<typeof source>;

// A regex that must match the whole target URL (anchored as Prometheus anchors relabel regexes).
const targetPattern = z.string({ error: typeError("must be a regular expression string") }).superRefine((text, ctx) => {
  // Compiled on its own first: anchored, a stray ")" could close the anchoring group and leave the
  // rest unanchored ("a)|(.*" would allow anything).
  try {
    new RegExp(text);
  } catch (error) {
    const why = (error as Error).message.replace(/^Invalid regular expression: \/.*\/\w*: /s, "");
    ctx.addIssue({ code: "custom", message: `invalid regular expression ${JSON.stringify(text)}: ${why}` });
  }
});

// A module has no schedule of its own: it polls when Prometheus scrapes /probe.
const noModuleSchedule = z
  .undefined({
    error:
      "a module polls when Prometheus scrapes /probe, so its scrape_interval is the schedule (min_interval here caps how often one target is polled)",
  })
  .optional();

const moduleCommon = {
  group: groupName.optional(),
  schedule: noModuleSchedule,
  interval: noModuleSchedule,
  timeout: duration.optional(),
  max_response_size: size.optional(),
  // Whoever can reach /probe names the target: a module has a limit unless it says 0.
  series_limit: seriesLimit.optional(),
  // Probes of one target within this interval are served the last result: however many Prometheus
  // servers probe it, the upstream is polled at most once per interval.
  min_interval: duration.optional(),
  // The targets /probe may fetch with this module; required once it carries credentials (no SSRF leak).
  allowed_targets: z.array(targetPattern, { error: typeError("must be a list of regular expressions") }).optional(),
  ...httpClientFields,
};

const carriesSecrets = (m: {
  basic_auth?: unknown;
  authorization?: unknown;
  headers?: Record<string, string>;
  tls_config?: { cert_file?: string };
}) =>
  m.basic_auth !== undefined ||
  m.authorization !== undefined ||
  Object.keys(m.headers ?? {}).length > 0 ||
  m.tls_config?.cert_file !== undefined;

const probeModule = z
  .discriminatedUnion(
    "kind",
    [
      z.strictObject({
        ...moduleCommon,
        kind: z.literal("prometheus"),
        flavor: flavorOf("prometheus"),
        tsdb: tsdbSettings,
        targets: targetsSettings,
        ...statusEndpointSettings,
        replica_labels: replicaLabels,
      }),
      z.strictObject({
        ...moduleCommon,
        kind: z.literal("alertmanager"),
        flavor: flavorOf("alertmanager"),
        tsdb: prometheusOnly("tsdb", "modules"),
        targets: prometheusOnly("targets", "modules"),
        ...prometheusOnlyKeys("modules"),
      }),
    ],
    {
      error: (issue) => (issue.code === "invalid_union" ? 'kind must be "prometheus" or "alertmanager"' : undefined),
    },
  )
  .refine(oneAuthMethod, oneAuthMessage)
  .refine((m) => !carriesSecrets(m) || (m.allowed_targets?.length ?? 0) > 0, {
    error:
      "a module with credentials, headers or a client certificate must list allowed_targets, so that /probe sends them only to targets you allow",
    path: ["allowed_targets"],
  })
  // Whoever reaches /probe names the target: an open module would let anyone add a member to the group.
  .refine((m) => m.group === undefined || (m.allowed_targets?.length ?? 0) > 0, {
    error:
      "a module with group must list allowed_targets, so that only the servers you allow are compared as members of the group",
    path: ["allowed_targets"],
  });

export const configSchema = z
  .strictObject({
    modules: z.record(z.string().min(1), probeModule).optional(),
    global: z
      .strictObject({
        schedule: cronExpression.optional(),
        interval: interval.optional(),
        timeout: duration.optional(),
        max_response_size: size.optional(),
        series_limit: seriesLimit.optional(),
        replica_labels: replicaLabels,
        // For sources, as the other global settings: a module has its own or auto.
        flavor: anyFlavor,
      })
      .refine(oneSchedule, oneScheduleMessage)
      .optional(),
    sources: z
      .array(source, { error: typeError("must be a list of sources") })
      .optional()
      .superRefine((sources = [], ctx) => {
        const seen = new Map<string, number>();
        sources.forEach((s, i) => {
          const first = seen.get(s.name);
          if (first !== undefined)
            ctx.addIssue({
              code: "custom",
              path: [i, "name"],
              message: `duplicate source name "${s.name}" (also sources[${first}])`,
            });
          else seen.set(s.name, i);
        });
        // A group compares replicas of one service: one kind of server throughout.
        const firstOfGroup = new Map<string, number>();
        sources.forEach((s, i) => {
          if (s.group === undefined) return;
          const first = firstOfGroup.get(s.group);
          if (first === undefined) {
            firstOfGroup.set(s.group, i);
            return;
          }
          const other = sources[first] as RawSourceShape;
          if (other.kind !== s.kind)
            ctx.addIssue({
              code: "custom",
              path: [i, "group"],
              message: `group "${s.group}" mixes kinds: "${s.name}" is ${s.kind}, "${other.name}" (sources[${first}]) is ${other.kind}`,
            });
        });
      }),
  })
  // A global flavor is taken by every source that sets none: each of them must be of a kind it fits.
  .superRefine((config, ctx) => {
    const global = config.global?.flavor;
    if (global === undefined || global === "auto") return;
    (config.sources ?? []).forEach((s, i) => {
      if (s.flavor !== undefined || (FLAVORS_OF_KIND[s.kind] as readonly string[]).includes(global)) return;
      const mismatch = flavorMismatch(s.kind, global);
      ctx.addIssue({
        code: "custom",
        path: ["sources", i, "kind"],
        message: `takes global.flavor ${global}: ${mismatch.why}; set flavor on this source (${mismatch.fits})`,
      });
    });
  })
  // Probed members join the sources of the same group: one kind of server throughout there too.
  .superRefine((config, ctx) => {
    const kindOfGroup = new Map<string, { kind: string; where: string }>();
    (config.sources ?? []).forEach((s, i) => {
      if (s.group !== undefined && !kindOfGroup.has(s.group))
        kindOfGroup.set(s.group, { kind: s.kind, where: `"${s.name}" (sources[${i}])` });
    });
    for (const [name, m] of Object.entries(config.modules ?? {})) {
      if (m.group === undefined) continue;
      const first = kindOfGroup.get(m.group);
      if (first === undefined) kindOfGroup.set(m.group, { kind: m.kind, where: `module "${name}"` });
      else if (first.kind !== m.kind)
        ctx.addIssue({
          code: "custom",
          path: ["modules", name, "group"],
          message: `group "${m.group}" mixes kinds: module "${name}" is ${m.kind}, ${first.where} is ${first.kind}`,
        });
    }
  })
  // An exporter with nothing to poll is a mistake, unless it only answers /probe: a probe-only config
  // says so with a modules: section (which may be empty, keeping the built-in modules).
  .superRefine((config, ctx) => {
    if (config.modules === undefined && (config.sources ?? []).length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["sources"],
        message:
          config.sources === undefined
            ? "is required (or a modules: section, for an exporter that only answers /probe)"
            : "at least one source is required (or a modules: section, for an exporter that only answers /probe)",
      });
    }
  });

export type RawConfig = z.infer<typeof configSchema>;
export type RawSource = NonNullable<RawConfig["sources"]>[number];
export type RawModule = NonNullable<RawConfig["modules"]>[string];
