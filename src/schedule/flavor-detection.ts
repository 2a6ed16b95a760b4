import type { Logger } from "pino";
import { FLAVOR_NAMES, type Flavor, flavorFits } from "../config/flavors.js";
import type { SourceConfig } from "../config/types.js";
import { THANOS_IN_GROUP } from "../config/warnings.js";
import type { FlavorClue } from "../poll/flavor-clues.js";

/** A flavor as the log names it, for a source of this kind. */
export function describeFlavor(kind: SourceConfig["kind"], flavor: Flavor): string {
  if (kind === "alertmanager")
    return flavor === "mimir" ? "Mimir's Alertmanager" : "an Alertmanager of the Prometheus project";
  return FLAVOR_NAMES[flavor];
}

/**
 * What one source's answers have said it is, kept from poll to poll for as long as its job runs (a
 * reload that changes the source starts a new job, and detection over unless it is asked of the same
 * server as before). Each poll's clue is taken: the
 * flavor is set by the first, and changes only when a later one says otherwise (a server replaced
 * behind the URL). Each finding is logged once.
 */
export class FlavorDetection {
  private detected: Flavor | undefined;
  private readonly told = new Set<string>();

  /** `known`: what an earlier job of the same server detected (a reload changed other settings), not logged again. */
  constructor(
    private readonly source: SourceConfig,
    private readonly log: Logger,
    known?: Flavor,
  ) {
    this.detected = known;
    // Not said again as detected, but a source now in a group is warned as a new one would be.
    if (known === "thanos" && source.group !== undefined && source.flavor === undefined)
      this.once("thanos in group", () => this.log.warn({ source: source.name, group: source.group }, THANOS_IN_GROUP));
  }

  /** The flavor the answers told, if they fit the source's kind; undefined until one did. */
  get flavor(): Flavor | undefined {
    return this.detected;
  }

  /** The flavor in effect: configured, else detected. */
  get inEffect(): Flavor | undefined {
    return this.source.flavor ?? this.detected;
  }

  /** The flavor a clue tells for this source's kind, if it tells one that fits. */
  fitting(clue: FlavorClue | undefined): Flavor | undefined {
    return clue !== undefined && flavorFits(this.source.kind, clue.flavor) ? clue.flavor : undefined;
  }

  /** Takes a poll's clue; true when the detected flavor changed. */
  take(clue: FlavorClue | undefined): boolean {
    if (clue === undefined) return false;
    const { name, kind, flavor: configured, group } = this.source;
    const fields = { source: name, flavor: clue.flavor, detected_from: clue.from };
    if (!flavorFits(kind, clue.flavor)) {
      this.once(`misfit ${clue.flavor}`, () =>
        this.log.warn(
          fields,
          `source ${name} answers like ${describeFlavor("prometheus", clue.flavor)} (detected from ${clue.from}), which does not serve kind ${kind}; check its url and kind`,
        ),
      );
      return false;
    }
    if (configured !== undefined && configured !== clue.flavor)
      this.once(`configured ${clue.flavor}`, () =>
        this.log.warn(
          { ...fields, configured },
          `source ${name} is configured as flavor ${configured}, but its answers say ${describeFlavor(kind, clue.flavor)} (detected from ${clue.from}); they are read as ${configured}`,
        ),
      );
    if (clue.flavor === this.detected) return false;
    const was = this.detected;
    this.detected = clue.flavor;
    if (configured === undefined) {
      const what = describeFlavor(kind, clue.flavor);
      const message =
        was === undefined
          ? `source ${name} is ${what} (detected from ${clue.from})`
          : `source ${name} is now ${what} (was ${describeFlavor(kind, was)}; detected from ${clue.from})`;
      this.log.info(fields, message);
      if (group !== undefined && clue.flavor === "thanos")
        this.once("thanos in group", () => this.log.warn({ source: name, group }, THANOS_IN_GROUP));
    }
    return true;
  }

  private once(key: string, say: () => void): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    say();
  }
}
