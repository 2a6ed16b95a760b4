import { describe, expect, it } from "vitest";
import { headingAnchors, markdownLinks, slug } from "./markdown.js";

describe("markdownLinks", () => {
  it("finds links and images with their lines, not those inside code", () => {
    const text = [
      "See [the config](docs/configuration.md#flags) and ![shot](docs/status-page.png).",
      "Not `[code](nowhere.md)` here.",
      "```yaml",
      "x: [a](inside-fence.md)",
      "```",
      '[`values.yaml`](../helm/values.yaml "title") and <https://example.com>',
    ].join("\n");
    expect(markdownLinks(text)).toEqual([
      { target: "docs/configuration.md#flags", line: 1 },
      { target: "docs/status-page.png", line: 1 },
      { target: "../helm/values.yaml", line: 6 },
    ]);
  });
});

describe("slug", () => {
  // Anchors as GitHub renders them for these headings.
  it.each([
    ["Probing servers Prometheus discovers (`/probe`)", "probing-servers-prometheus-discovers-probe"],
    ["How `allowed_targets` matches", "how-allowed_targets-matches"],
    ["Very large fleets: `hashmod` sharding", "very-large-fleets-hashmod-sharding"],
    ["Alertmanager's config", "alertmanagers-config"],
    ["Sidecar in kube-prometheus-stack", "sidecar-in-kube-prometheus-stack"],
    [
      "Recipe: plain `scrape_configs` (file_sd or kubernetes_sd)",
      "recipe-plain-scrape_configs-file_sd-or-kubernetes_sd",
    ],
  ])("%s → #%s", (heading, anchor) => {
    expect(slug(heading)).toBe(anchor);
  });
});

describe("headingAnchors", () => {
  it("numbers repeated headings and ignores # lines in code", () => {
    const text = ["# Metrics", "## Alerts", "```sh", "# a comment", "```", "## Alerts", '<a id="custom"></a>'].join(
      "\n",
    );
    expect([...headingAnchors(text)]).toEqual(["metrics", "alerts", "alerts-1", "custom"]);
  });
});
