import { endpointsOf, type SourceConfig } from "../config/types.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import { compareGroup, type GroupMember } from "../convert/replica-group.js";
import type { RenderedFamilies } from "../poll/decode.js";
import type { SourceState } from "./source-state.js";
import { labelPrefix, renderSampleSet } from "./text-format.js";

/** A replica group's members in config order, as the comparison and the landing page see them. */
export interface GroupView {
  name: string;
  kind: SourceConfig["kind"];
  members: (GroupMember & { state: SourceState })[];
}

/** The facts of the endpoint a kind is compared by: targets for Prometheus, status for Alertmanager. */
function factsOf(state: SourceState): ReplicaFacts | undefined {
  return state.endpoints.get(state.config.kind === "alertmanager" ? "status" : "targets")?.facts;
}

function memberOf(state: SourceState): GroupMember & { state: SourceState } {
  const endpoints = endpointsOf(state.config);
  const up = endpoints.length > 0 && endpoints.every((e) => state.endpoints.get(e)?.up === 1);
  return { source: state.config.name, up, facts: factsOf(state), state };
}

/** Every replica group among the sources, members in config order. */
export function groupViews(sources: Iterable<SourceState>): Map<string, GroupView> {
  const groups = new Map<string, GroupView>();
  for (const state of sources) {
    const { group, kind } = state.config;
    if (group === undefined) continue;
    let view = groups.get(group);
    if (!view) {
      view = { name: group, kind, members: [] };
      groups.set(group, view);
    }
    view.members.push(memberOf(state));
  }
  return groups;
}

/** The group's series, rendered: every one carries `group`, per-member ones `source` as well. */
export function renderGroup(view: GroupView): RenderedFamilies {
  return renderSampleSet(compareGroup(view.kind, view.members), labelPrefix({ group: view.name }));
}
