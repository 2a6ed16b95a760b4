import { describe, expect, it } from "vitest";
import {
  growthChartSvg,
  leastSquares,
  niceMax,
  type Panel,
  plotScale,
  slopePer,
} from "../../scripts/bench/growth-chart.js";

// The bench's growth chart: the least-squares slope it states, and an SVG that is well formed and draws
// each measured point where the scale puts it.

/** Tags balanced and attributes quoted; text without a bare < or &. Returns the elements opened, in order. */
function wellFormed(svg: string): { name: string; attrs: Record<string, string> }[] {
  const elements: { name: string; attrs: Record<string, string> }[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let at = 0;
  while (at < svg.length) {
    const lt = svg.indexOf("<", at);
    const text = svg.slice(at, lt < 0 ? svg.length : lt);
    expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(svg);
    if (!m) throw new Error(`malformed tag at ${lt}: ${svg.slice(lt, lt + 60)}`);
    const [whole, close, name, attrText, selfClose] = m as unknown as [string, string, string, string, string];
    if (close) {
      expect(stack.pop()).toBe(name);
    } else {
      const attrs = Object.fromEntries([...attrText.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]));
      elements.push({ name, attrs: attrs as Record<string, string> });
      if (!selfClose) stack.push(name);
    }
    at = lt + whole.length;
  }
  expect(stack).toEqual([]);
  return elements;
}

describe("leastSquares", () => {
  it("finds the line through points on a line", () => {
    const { slope, intercept } = leastSquares([
      { x: 20_000, y: 140 },
      { x: 100_000, y: 300 },
      { x: 500_000, y: 1100 },
    ]);
    expect(slope).toBeCloseTo(0.002, 10);
    expect(intercept).toBeCloseTo(100, 8);
  });

  it("fits points off a line as the normal equations say", () => {
    // x 1, 2, 3; y 1, 2, 4: slope = Σ(dx·dy)/Σdx² = (1·(-4/3) + 0 + 1·(5/3)) / 2 = 1.5
    const { slope, intercept } = leastSquares([
      { x: 1, y: 1 },
      { x: 2, y: 2 },
      { x: 3, y: 4 },
    ]);
    expect(slope).toBeCloseTo(1.5, 12);
    expect(intercept).toBeCloseTo(7 / 3 - 3, 12);
  });

  it("states the slope per 100k targets, leaving out sizes not measured", () => {
    const points = [
      { x: 20_000, y: 150 },
      { x: 100_000, y: 190 },
      { x: 500_000, y: Number.NaN },
    ];
    expect(slopePer(points)).toBeCloseTo(50, 10);
    expect(slopePer([{ x: 1, y: 1 }])).toBeNaN();
    expect(
      slopePer([
        { x: 1, y: 1 },
        { x: 1, y: 2 },
      ]),
    ).toBeNaN();
  });
});

describe("growthChartSvg", () => {
  const panels: Panel[] = [
    {
      title: "Peak RSS <VmHWM> & co",
      unit: "MB",
      series: [
        {
          name: "peak RSS",
          color: "#1f77b4",
          fit: true,
          values: true,
          points: [
            { x: 20_000, y: 150 },
            { x: 100_000, y: 190 },
            { x: 500_000, y: 430 },
          ],
        },
        {
          name: "idle",
          color: "#7f7f7f",
          dashed: true,
          points: [
            { x: 20_000, y: 106 },
            { x: 500_000, y: 106 },
          ],
        },
      ],
    },
    {
      title: "CPU per poll",
      unit: "ms",
      series: [
        {
          name: "daemon",
          color: "#d62728",
          fit: true,
          points: [
            { x: 20_000, y: 90 },
            { x: 100_000, y: 400 },
            { x: 500_000, y: Number.NaN }, // the daemon failed at this size
          ],
        },
      ],
    },
  ];
  const svg = growthChartSvg(panels, "npm run bench, 2026-01-01 & a caption");
  const elements = wellFormed(svg);

  it("is one well-formed svg element with escaped text", () => {
    expect(elements[0]?.name).toBe("svg");
    expect(elements[0]?.attrs.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(svg).toContain("Peak RSS &lt;VmHWM&gt; &amp; co");
    expect(svg).toContain("2026-01-01 &amp; a caption");
  });

  it("draws every finite point where the panel's scale puts it, and no other", () => {
    const circles = elements.filter((e) => e.name === "circle").map((e) => [Number(e.attrs.cx), Number(e.attrs.cy)]);
    const expected = panels.flatMap((panel, index) => {
      const scale = plotScale(panel, index, 500_000);
      return panel.series.flatMap((s) =>
        s.points.filter((p) => Number.isFinite(p.y)).map((p) => [scale.x(p.x), scale.y(p.y)]),
      );
    });
    expect(circles).toHaveLength(7);
    circles.forEach(([cx, cy], i) => {
      const [ex, ey] = expected[i] as [number, number];
      expect(cx).toBeCloseTo(ex, 0);
      expect(cy).toBeCloseTo(ey, 0);
    });
    // The largest x is at the right end of the plot, y 0 at the bottom, the axis maximum round.
    const scale = plotScale(panels[0] as Panel, 0, 500_000);
    expect(scale.yMax).toBe(500);
    expect(scale.x(500_000)).toBe(scale.right);
    expect(scale.y(0)).toBe(scale.bottom);
    expect(svg).not.toMatch(/NaN|Infinity/);
    // Values written above the points of the series that asks for them only.
    const written = elements.filter((e) => e.name === "text" && e.attrs.fill === "#1f77b4").length;
    expect(written).toBe(3);
  });

  it("states each fitted series' slope per 100k targets, with its dashed line", () => {
    expect(svg).toContain("peak RSS: +58.9 MB per 100k targets"); // (20k,150) (100k,190) (500k,430): Σdxdy/Σdx² = 58.87 per 100k
    expect(svg).toContain("daemon: +387.5 ms per 100k targets"); // two points: (400-90)/0.8
    expect(elements.filter((e) => e.name === "line" && e.attrs.class === "fit")).toHaveLength(2);
  });

  it("rounds axis maxima up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([niceMax(430), niceMax(0.7), niceMax(1000), niceMax(1001), niceMax(0)]).toEqual([500, 1, 1000, 2000, 1]);
  });
});
