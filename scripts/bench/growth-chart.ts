// How the daemon's cost grows with the number of targets: the least-squares slope over the measured
// sizes, and a plain SVG line chart of it (written by hand: no charting dependency). Pure functions.

export interface Point {
  x: number;
  y: number;
}

/** The least-squares line through the points (NaN where fewer than two finite points, or one x). */
export function leastSquares(points: readonly Point[]): { slope: number; intercept: number } {
  const finite = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const n = finite.length;
  if (n < 2) return { slope: Number.NaN, intercept: Number.NaN };
  const mx = finite.reduce((s, p) => s + p.x, 0) / n;
  const my = finite.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of finite) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  if (sxx === 0) return { slope: Number.NaN, intercept: Number.NaN };
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export interface Series {
  name: string;
  color: string;
  points: Point[];
  /** Draw the least-squares line through the points (dashed) and state its slope in the legend. */
  fit?: boolean;
  /** Dashed line of the series itself (a baseline). */
  dashed?: boolean;
  /** Write each point's value above it. */
  values?: boolean;
}

export interface Panel {
  title: string;
  /** Unit of the y values, as the axis and the slope say it ("MB", "ms"). */
  unit: string;
  series: Series[];
}

/** The slope per `per` x units (100,000 targets) as the chart and the tables state it. */
export function slopePer(points: readonly Point[], per = 100_000): number {
  return leastSquares(points).slope * per;
}

const xmlText = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const num = (n: number) => (Math.round(n * 10) / 10).toString();
const thousands = (n: number) => (n >= 1000 ? `${num(n / 1000)}k` : num(n));

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

export const PANEL_WIDTH = 480;
export const PANEL_HEIGHT = 340;
const MARGIN = { left: 64, right: 16, top: 36, bottom: 96 };

/** Where a point of panel `index` is drawn: the same scale the chart uses. */
export function plotScale(panel: Panel, index: number, xMax: number) {
  const ys = panel.series.flatMap((s) => s.points.map((p) => p.y));
  const yMax = niceMax(Math.max(0, ...ys.filter(Number.isFinite)));
  const left = index * PANEL_WIDTH + MARGIN.left;
  const width = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const height = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  return {
    yMax,
    x: (x: number) => left + (x / xMax) * width,
    y: (y: number) => MARGIN.top + height - (y / yMax) * height,
    left,
    right: left + width,
    top: MARGIN.top,
    bottom: MARGIN.top + height,
  };
}

/**
 * Panels side by side, x from 0 to the largest x (targets), ticks at the measured x values; each series
 * a line with its points and values; a fitted series adds its least-squares line and its slope per
 * 100k targets in the legend. Points that are not finite (a size that was not measured) are left out.
 */
export function growthChartSvg(panels: readonly Panel[], caption: string): string {
  const xs = panels.flatMap((p) => p.series.flatMap((s) => s.points.map((q) => q.x))).filter(Number.isFinite);
  const xMax = Math.max(1, ...xs);
  const ticks = [...new Set(xs)].sort((a, b) => a - b);
  const width = PANEL_WIDTH * panels.length;
  const height = PANEL_HEIGHT + 24;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img">`,
    // The chart's name for readers that cannot see it (and for the linter's accessibility rule).
    `<title>${xmlText(panels.map((p) => p.title).join("; "))}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  panels.forEach((panel, index) => {
    const s = plotScale(panel, index, xMax);
    const mid = (s.left + s.right) / 2;
    out.push(`<g class="panel">`);
    out.push(
      `<text x="${num(mid)}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${xmlText(panel.title)}</text>`,
    );
    // Axes, grid and ticks.
    for (let k = 0; k <= 4; k++) {
      const v = (s.yMax * k) / 4;
      const y = num(s.y(v));
      out.push(`<line x1="${num(s.left)}" y1="${y}" x2="${num(s.right)}" y2="${y}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${num(s.left - 6)}" y="${y}" text-anchor="end" dominant-baseline="middle">${num(v)}</text>`);
    }
    out.push(
      `<line x1="${num(s.left)}" y1="${num(s.bottom)}" x2="${num(s.right)}" y2="${num(s.bottom)}" stroke="#333333"/>`,
    );
    out.push(
      `<line x1="${num(s.left)}" y1="${num(s.top)}" x2="${num(s.left)}" y2="${num(s.bottom)}" stroke="#333333"/>`,
    );
    for (const t of ticks) {
      const x = num(s.x(t));
      out.push(`<line x1="${x}" y1="${num(s.bottom)}" x2="${x}" y2="${num(s.bottom + 4)}" stroke="#333333"/>`);
      out.push(`<text x="${x}" y="${num(s.bottom + 16)}" text-anchor="middle">${thousands(t)}</text>`);
    }
    out.push(`<text x="${num(mid)}" y="${num(s.bottom + 32)}" text-anchor="middle">targets</text>`);
    out.push(
      `<text transform="translate(${num(s.left - 48)} ${num((s.top + s.bottom) / 2)}) rotate(-90)" text-anchor="middle">${xmlText(panel.unit)}</text>`,
    );
    // Series.
    panel.series.forEach((series, n) => {
      const points = series.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
      const dash = series.dashed ? ` stroke-dasharray="6 4"` : "";
      out.push(`<g class="series" data-name="${xmlText(series.name)}">`);
      if (points.length > 1) {
        const path = points.map((p) => `${num(s.x(p.x))},${num(s.y(p.y))}`).join(" ");
        out.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`);
      }
      for (const p of points) {
        out.push(`<circle cx="${num(s.x(p.x))}" cy="${num(s.y(p.y))}" r="4" fill="${series.color}"/>`);
        if (!series.values) continue;
        out.push(
          `<text x="${num(s.x(p.x))}" y="${num(s.y(p.y) - 8)}" text-anchor="middle" fill="${series.color}">${Math.round(p.y)}</text>`,
        );
      }
      let legend = series.name;
      if (series.fit) {
        const { slope, intercept } = leastSquares(points);
        if (Number.isFinite(slope)) {
          const at = (x: number) => intercept + slope * x;
          const from = Math.min(...points.map((p) => p.x));
          const to = Math.max(...points.map((p) => p.x));
          out.push(
            `<line class="fit" x1="${num(s.x(from))}" y1="${num(s.y(at(from)))}" x2="${num(s.x(to))}" y2="${num(s.y(at(to)))}" stroke="${series.color}" stroke-opacity="0.5" stroke-dasharray="3 3"/>`,
          );
          legend += `: ${slope * 100_000 >= 0 ? "+" : ""}${num(slope * 100_000)} ${panel.unit} per 100k targets`;
        }
      }
      const y = num(s.bottom + 50 + n * 16);
      out.push(
        `<line x1="${num(s.left)}" y1="${y}" x2="${num(s.left + 20)}" y2="${y}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      );
      out.push(`<text x="${num(s.left + 26)}" y="${y}" dominant-baseline="middle">${xmlText(legend)}</text>`);
      out.push("</g>");
    });
    out.push("</g>");
  });
  out.push(`<text x="8" y="${height - 8}" font-size="11" fill="#555555">${xmlText(caption)}</text>`);
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
