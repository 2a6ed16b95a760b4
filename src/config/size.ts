// Byte sizes as Prometheus and Kubernetes operators write them: 512KiB, 64MiB, 1GB, 1000B.
const UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
};
const SIZE = /^(\d+)(B|KB|MB|GB|KiB|MiB|GiB)$/;

/** Bytes for a size such as `64MiB`; undefined if malformed. */
export function parseSize(text: string): number | undefined {
  const match = SIZE.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}
