import { z } from "zod";

// Schemas for the three upstream answers. They check only the fields the converters read, tolerate
// unknown fields (newer versions) and default the optional ones (older versions).

const nameValue = z.object({ name: z.string(), value: z.number() });
const nameValueList = z
  .array(nameValue)
  .nullish()
  .transform((list) => list ?? []);

export const tsdbResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    headStats: z
      .object({ numSeries: z.number(), chunkCount: z.number(), minTime: z.number(), maxTime: z.number() })
      .optional(),
    seriesCountByMetricName: nameValueList,
    labelValueCountByLabelName: nameValueList,
    memoryInBytesByLabelName: nameValueList,
    seriesCountByLabelValuePair: nameValueList,
  }),
});
export type TsdbResponse = z.infer<typeof tsdbResponse>;

const activeTarget = z.object({
  labels: z.object({ job: z.string(), instance: z.string() }),
  scrapePool: z.string(),
  health: z.string(),
  lastScrape: z.string().optional(),
  lastScrapeDuration: z.number().optional(),
});

export const targetsResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    activeTargets: z
      .array(activeTarget)
      .nullish()
      .transform((list) => list ?? []),
    // Only counted, so the elements' shape does not matter.
    droppedTargets: z
      .array(z.unknown())
      .nullish()
      .transform((list) => list ?? []),
    // Prometheus 2.49+: dropped targets per pool, also when they are not listed (state=active).
    droppedTargetCounts: z.record(z.string(), z.number()).nullish(),
  }),
});
export type TargetsResponse = z.infer<typeof targetsResponse>;

const optionalString = z.string().optional().default("");

export const alertmanagerStatusResponse = z.object({
  cluster: z.object({
    name: z.string().optional(),
    status: z.string(),
    peers: z
      .array(z.object({ name: z.string(), address: z.string() }))
      .nullish()
      .transform((list) => list ?? []),
  }),
  config: z.object({ original: z.string() }),
  uptime: z.string(),
  versionInfo: z
    .object({
      version: optionalString,
      revision: optionalString,
      branch: optionalString,
      goVersion: optionalString,
      buildUser: optionalString,
      buildDate: optionalString,
    })
    .optional(),
});
export type AlertmanagerStatusResponse = z.infer<typeof alertmanagerStatusResponse>;

/** One line naming the first few mismatches, for the log. */
export function describeMismatch(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}
