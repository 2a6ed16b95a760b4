// Label values an upstream writes freely (versions, revisions, peer names) are cut to a bound: one info
// series of a hostile answer with a 30 MB version made a 63 MB /metrics and a 31 MB status page. Real
// values are far shorter (a Go version string, a git revision, a ULID and an address).

/** The longest label value taken from an answer's free text, in UTF-16 code units. */
export const INFO_LABEL_MAX = 256;

/** The value, or its first INFO_LABEL_MAX units (never half a surrogate pair) and an ellipsis. */
export function infoLabel(value: string): string {
  if (value.length <= INFO_LABEL_MAX) return value;
  let end = INFO_LABEL_MAX - 1;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair would be cut off
  return `${value.slice(0, end)}…`;
}

/** Every value of a label set through infoLabel. */
export function infoLabels<K extends string>(labels: Record<K, string>): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const key of Object.keys(labels) as K[]) out[key] = infoLabel(labels[key]);
  return out;
}

/** The build_info labels Prometheus and Alertmanager both report (versionInfo, buildinfo), bounded. */
export function buildInfoLabels(v: {
  version: string;
  revision: string;
  branch: string;
  goVersion: string;
  buildUser: string;
  buildDate: string;
}): Record<"version" | "revision" | "branch" | "go_version" | "build_user" | "build_date", string> {
  return infoLabels({
    version: v.version,
    revision: v.revision,
    branch: v.branch,
    go_version: v.goVersion,
    build_user: v.buildUser,
    build_date: v.buildDate,
  });
}
