// Charts drawn by Chart.js (only the parts used are registered, to keep the bundle small). Every chart is a
// figure with its caption, a one-sentence summary for screen readers on the canvas, and the same numbers as a
// table below it. Series are told apart without colour: bars against lines, solid against dashed lines, and
// each line's own point shape, which the legend shows. Series over time are lines with their points (a lone day
// or hour is a point, not one wide bar); counts have whole-number ticks.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from "chart.js";
import { useEffect, useRef } from "preact/hooks";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

export interface Series {
  label: string;
  values: (number | null)[];
  kind: "bar" | "line";
  /** A dashed line, for a second line beside a solid one. */
  dashed?: boolean;
  /** The right-hand axis (a rate beside counts). */
  right?: boolean;
  /** How a value reads in the table (a rate as a percentage). */
  format?: (v: number) => string;
}

/** The page's chart colours (styles.css: light or dark, by the system's preference), read when a chart is drawn. */
const cssColour = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
const colours = () =>
  ["--chart-1", "--chart-2", "--chart-3", "--chart-4"].map((v, i) => cssColour(v, ["#1f5fa8", "#2e7d32", "#b45309", "#6b21a8"][i]!));
const POINTS = ["circle", "triangle", "rect", "rectRot"] as const;

export function ChartFigure({
  id,
  caption,
  labelHeading,
  summary,
  labels,
  series,
  horizontal,
  fractional = false,
}: {
  id: string;
  caption: string;
  /** The heading of the table's first column (what the labels are: Day, Country). */
  labelHeading: string;
  /** What the chart shows, in one sentence (read instead of the canvas). */
  summary: string;
  labels: string[];
  series: Series[];
  horizontal?: boolean;
  /** The values axis may show fractions (seconds); else its ticks are whole numbers, as counts are. */
  fractional?: boolean;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const COLOURS = colours();
    Chart.defaults.color = cssColour("--chart-text", "#59636e");
    Chart.defaults.borderColor = cssColour("--chart-grid", "#e4e7eb");
    const values = { beginAtZero: true, ...(fractional ? {} : { ticks: { precision: 0 } }) };
    // A category axis keeps its labels off the edges (as a bar chart's): a lone day's point stands in the
    // middle, not on the axis where the rate beside it hides.
    const index = { offset: true };
    const config: ChartConfiguration = {
      type: series.some((s) => s.kind === "bar") ? "bar" : "line",
      data: {
        labels,
        datasets: series.map((s, i) => ({
          type: s.kind,
          label: s.label,
          data: s.values,
          backgroundColor: COLOURS[i % COLOURS.length],
          borderColor: COLOURS[i % COLOURS.length],
          borderDash: s.dashed ? [6, 4] : [],
          pointStyle: POINTS[i % POINTS.length],
          pointRadius: 4,
          // Chart.js draws the highest order first: bars under, lines over them (with one order for all, the
          // first dataset, a bar, was drawn last and hid the lines behind it).
          order: s.kind === "line" ? 0 : 1,
          yAxisID: s.right ? "right" : "y",
          ...(s.kind === "line" ? { fill: false, tension: 0 } : {}),
        })),
      },
      options: {
        indexAxis: horizontal ? "y" : "x",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        // The legend in the series' order (not the drawing order).
        plugins: { legend: { labels: { usePointStyle: true, sort: (a, b) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0) } } },
        scales: series.some((s) => s.right)
          ? {
              x: index,
              y: { ...values, position: "left" },
              right: { beginAtZero: true, max: 100, position: "right", grid: { drawOnChartArea: false } },
            }
          : { [horizontal ? "y" : "x"]: index, [horizontal ? "x" : "y"]: values },
      },
    };
    const chart = new Chart(canvas.current, config);
    // The order the series are drawn in, first to last (what lies on top last), as Chart.js sorts them.
    canvas.current.dataset.drawn = chart
      .getSortedVisibleDatasetMetas()
      .map((m) => m.label)
      .reverse()
      .join("|");
    // What is drawn, for the tests: each series' kind, the values axis' ticks, where each label stands across
    // the chart (in % of its width or height).
    const across = chart.scales[horizontal ? "y" : "x"]!;
    const length = horizontal ? chart.chartArea.bottom - chart.chartArea.top : chart.chartArea.right - chart.chartArea.left;
    const start = horizontal ? chart.chartArea.top : chart.chartArea.left;
    Object.assign(canvas.current.dataset, {
      kinds: series.map((s) => s.kind).join("|"),
      ticks: chart.scales[horizontal ? "x" : "y"]!.ticks.map((t) => String(t.label)).join("|"),
      labelsAt: labels.map((_, i) => Math.round((100 * (across.getPixelForValue(i) - start)) / length)).join("|"),
    });
    return () => chart.destroy();
  }, [JSON.stringify({ labels, series: series.map((s) => ({ ...s, format: undefined })) }), horizontal, fractional]);

  return (
    <figure class="chart" aria-labelledby={`${id}-caption`} data-chart={id}>
      <figcaption id={`${id}-caption`}>{caption}</figcaption>
      <div class="chart-canvas">
        <canvas ref={canvas} role="img" aria-label={summary} />
      </div>
      <details>
        <summary>{caption}: the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{labelHeading}</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, row) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => {
                  const v = s.values[row];
                  return <td key={s.label}>{v === null || v === undefined ? "–" : s.format ? s.format(v) : v.toLocaleString()}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
