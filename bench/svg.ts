// Minimal SVG line charts for bench/README.md (GitHub renders them inline): one or more series of (x, y)
// points on linear axes, with ticks, a legend and the series names. Enough for latency distributions and
// throughput against worker count; nothing here is interactive.
export interface Series {
  name: string;
  points: [number, number][];
}

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const W = 640;
const H = 360;
const M = { left: 64, right: 16, top: 36, bottom: 48 };

function ticks(max: number, count = 5): number[] {
  const raw = max / count;
  const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw || 1))).find((s) => s >= raw) ?? raw;
  return Array.from({ length: Math.floor(max / step) + 1 }, (_v, i) => Number((i * step).toPrecision(6)));
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function lineChart(o: { title: string; xLabel: string; yLabel: string; series: Series[]; yMax?: number }): string {
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = o.series.flatMap((s) => s.points.map((p) => p[1]));
  const xMin = Math.min(0, ...xs);
  const xTicks = ticks(Math.max(...xs) - xMin);
  const yTicks = ticks(o.yMax ?? Math.max(...ys) * 1.05);
  const xMax = xMin + xTicks.at(-1)!;
  const yMax = yTicks.at(-1)!;
  const px = (x: number) => M.left + ((x - xMin) / (xMax - xMin || 1)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (Math.min(y, yMax) / (yMax || 1)) * (H - M.top - M.bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(o.title)}</text>`,
    ...yTicks.map(
      (t) =>
        `<line x1="${M.left}" x2="${W - M.right}" y1="${py(t)}" y2="${py(t)}" stroke="#eee"/><text x="${M.left - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`,
    ),
    ...xTicks.map((t) => `<text x="${px(xMin + t)}" y="${H - M.bottom + 16}" text-anchor="middle">${xMin + t}</text>`),
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">${esc(o.xLabel)}</text>`,
    `<text transform="translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`,
  ];
  o.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const d = s.points.map(([x, y], j) => `${j ? "L" : "M"}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    parts.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const [x, y] of s.points.length <= 12 ? s.points : []) parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="3" fill="${colour}"/>`);
    parts.push(
      `<rect x="${M.left + 12}" y="${M.top + 6 + i * 16}" width="12" height="3" fill="${colour}"/><text x="${M.left + 30}" y="${M.top + 11 + i * 16}">${esc(s.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
