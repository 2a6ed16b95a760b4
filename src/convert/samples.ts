import { labelPairs } from "./label-pairs.js";

export type Labels = Record<string, string>;

export interface Sample {
  labels: Labels;
  value: number;
}

/**
 * The samples one upstream answer turns into, grouped by metric name. Never two with one name and label
 * set, whatever the answer lists: the first is kept, the others are counted in `duplicates` (an answer
 * naming one metric or peer twice; Prometheus would keep one of the lines without a word).
 */
export class SampleSet {
  readonly families = new Map<string, Sample[]>();
  private readonly keys = new Map<string, Set<string>>();
  /** Samples left out for repeating a series already added. */
  duplicates = 0;

  /** `key`: the labels as labelPairs renders them, when the caller has it already. */
  add(name: string, labels: Labels, value: number, key = labelPairs(labels)): this {
    let list = this.families.get(name);
    let keys = this.keys.get(name);
    if (!list || !keys) {
      list = [];
      keys = new Set();
      this.families.set(name, list);
      this.keys.set(name, keys);
    }
    if (keys.has(key)) {
      this.duplicates++;
      return this;
    }
    keys.add(key);
    list.push({ labels, value });
    return this;
  }

  get(name: string): Sample[] {
    return this.families.get(name) ?? [];
  }

  get size(): number {
    let n = 0;
    for (const list of this.families.values()) n += list.length;
    return n;
  }
}
