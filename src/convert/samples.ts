export type Labels = Record<string, string>;

export interface Sample {
  labels: Labels;
  value: number;
}

/** The samples one upstream answer turns into, grouped by metric name. */
export class SampleSet {
  readonly families = new Map<string, Sample[]>();

  add(name: string, labels: Labels, value: number): this {
    let list = this.families.get(name);
    if (!list) {
      list = [];
      this.families.set(name, list);
    }
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
