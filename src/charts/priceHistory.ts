// Price-history PNG (daily average price line, volume bars, optional individual sales) and the numbers quoted beside it.
import { createCanvas } from "@napi-rs/canvas";
import { Chart, registerables, type ChartConfiguration, type ChartItem } from "chart.js";
import type { HistoryPoint } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import { CHART_FONT_FAMILY, registerChartFont } from "./fonts.ts";
import { DARK, darkBackground, drawEmpty } from "./theme.ts";

const THEME = {
  ...DARK,
  line: "#5865f2",
  lineFill: "rgba(88, 101, 242, 0.15)",
  bars: "rgba(148, 155, 164, 0.35)",
  sales: "#f0b232",
} as const;
/** The shipped font only: system fonts may be absent (the slim image has none). */
const FONT_FAMILY = CHART_FONT_FAMILY;
const MIN_SIDE = 200;
const MAX_SIDE = 2000;
const MAX_TITLE = 70;
const DAY_MS = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// Registration is global to chart.js and the canvas; doing it at module load makes it happen once.
registerChartFont();
Chart.register(...registerables);
Chart.defaults.font.family = FONT_FAMILY;
Chart.defaults.color = THEME.text;

export interface PriceHistoryChartInput {
  /** Item name shown in the title. */
  name: string;
  points: readonly HistoryPoint[];
  /** Individual sales drawn as dots over the daily average. */
  sales?: readonly { price: Cents; soldAt: string }[];
  width?: number;
  height?: number;
}

/** "2025-03-07", "2025-03-07T12:00:00Z" -> "2025-03-07"; unparseable text is kept as it is. */
function dayKey(day: string): string {
  if (/^\d{4}-\d{2}-\d{2}/.test(day)) return day.slice(0, 10);
  const ms = Date.parse(day);
  return Number.isNaN(ms) ? day : new Date(ms).toISOString().slice(0, 10);
}

function dayLabel(key: string): string {
  const m = /^\d{4}-(\d{2})-(\d{2})$/.exec(key);
  if (!m) return key.slice(0, 12);
  return `${MONTHS[Number(m[1]) - 1] ?? m[1]} ${Number(m[2])}`;
}

/** A day with no sales has no meaningful average (the service may send 0). */
function isPriced(p: HistoryPoint): boolean {
  return p.count > 0 && Number.isFinite(p.avg_price) && p.avg_price > 0;
}

function clampSide(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round(value)));
}

function shorten(text: string, max: number): string {
  const chars = [...text.replace(/\p{Cc}/gu, " ")];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}

/** "$1,250", "$5.50": cents only when the axis steps need them. */
function dollarTick(value: number): string {
  const fraction = Number.isInteger(value) ? 0 : 2;
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: fraction, maximumFractionDigits: fraction })}`;
}

/** Days the x axis steps by: whole days, about ten labels at most. */
function dayStep(spanDays: number): number {
  for (const step of [1, 2, 3, 7, 14, 30, 61, 91, 182, 365]) if (spanDays / step <= 10) return step;
  return Math.ceil(spanDays / 10);
}

/** Midnights (UTC, like the days' keys) from `first` to `last`, `step` days apart. */
export function dayTicks(first: number, last: number, step: number): number[] {
  const ticks: number[] = [];
  for (let t = first; t <= last; t += step * DAY_MS) ticks.push(t);
  return ticks;
}

type HistoryChartConfig = ChartConfiguration<"bar" | "line", Array<{ x: number; y: number }>, never>;

/**
 * The chart's configuration, or undefined when nothing can be drawn. The x axis is linear over
 * timestamps (chart.js's time scale needs a date adapter the bot does not ship): days sit at
 * their real distance, so a gap of a week looks like one, and ticks are labelled as dates. The
 * price line is monotone: with few points a smoothed curve must not overshoot the real prices.
 */
export function priceHistoryChartConfig(
  input: Pick<PriceHistoryChartInput, "name" | "points" | "sales">,
): HistoryChartConfig | undefined {
  const title = `${shorten(input.name, MAX_TITLE)} · daily average price`;
  const byDay = new Map<number, HistoryPoint>();
  for (const p of input.points) {
    const ms = Date.parse(dayKey(p.day));
    if (isPriced(p) && Number.isFinite(ms)) byDay.set(ms, p);
  }
  const sales = (input.sales ?? [])
    .map((s) => ({ price: s.price, at: Date.parse(s.soldAt) }))
    .filter((s) => Number.isFinite(s.price) && s.price > 0 && Number.isFinite(s.at));
  const saleDays = sales.map((s) => Date.parse(dayKey(new Date(s.at).toISOString())));
  const days = [...new Set([...byDay.keys(), ...saleDays])].sort((a, b) => a - b);
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return undefined;

  const many = days.length > 60;
  const spanDays = Math.round((last - first) / DAY_MS);
  const maxCount = Math.max(1, ...[...byDay.values()].map((p) => p.count));
  const priced = [...byDay.entries()].sort(([a], [b]) => a - b);
  return {
    type: "bar",
    data: {
      datasets: [
        {
          type: "line",
          label: "Average price",
          data: priced.map(([x, p]) => ({ x, y: p.avg_price / 100 })),
          yAxisID: "price",
          borderColor: THEME.line,
          backgroundColor: THEME.lineFill,
          fill: "start",
          borderWidth: 2,
          pointRadius: many ? 0 : days.length === 1 ? 5 : 3,
          // Smooth, but never above the highest or below the lowest of two neighbouring days.
          cubicInterpolationMode: "monotone",
          order: 1,
        },
        {
          type: "bar",
          label: "Sales per day",
          data: priced.map(([x, p]) => ({ x, y: p.count })),
          yAxisID: "volume",
          backgroundColor: THEME.bars,
          maxBarThickness: 24,
          order: 3,
        },
        ...(sales.length > 0
          ? [
              {
                type: "line" as const,
                label: "Individual sales",
                data: sales.map((s) => ({ x: s.at, y: s.price / 100 })),
                yAxisID: "price",
                showLine: false,
                pointRadius: 3,
                pointBackgroundColor: THEME.sales,
                borderColor: THEME.sales,
                order: 2,
              },
            ]
          : []),
      ],
    },
    options: {
      animation: false,
      responsive: false,
      maintainAspectRatio: false,
      layout: { padding: 12 },
      plugins: {
        title: { display: true, text: title, color: THEME.text, font: { size: 16, weight: "bold" } },
        legend: { labels: { color: THEME.text, boxWidth: 12 } },
        tooltip: { enabled: false },
      },
      scales: {
        x: {
          type: "linear",
          // Half a day either side, so the first and last bars are whole.
          min: first - DAY_MS / 2,
          max: last + DAY_MS / 2,
          // A tick on the first day and every step days after, each exactly on its day's points.
          afterBuildTicks: (axis) => {
            axis.ticks = dayTicks(first, last, dayStep(spanDays)).map((value) => ({ value }));
          },
          ticks: {
            color: THEME.muted,
            maxRotation: 0,
            autoSkip: false,
            callback: (v) => dayLabel(new Date(Number(v)).toISOString().slice(0, 10)),
          },
          grid: { color: THEME.grid },
        },
        price: {
          type: "linear",
          position: "left",
          // The bar chart type starts value axes at zero; prices read better around their range.
          beginAtZero: false,
          grace: "10%",
          title: { display: true, text: "Price ($)", color: THEME.muted },
          ticks: { color: THEME.muted, callback: (v) => dollarTick(Number(v)) },
          grid: { color: THEME.grid },
        },
        volume: {
          type: "linear",
          position: "right",
          beginAtZero: true,
          // Three times the busiest day keeps the bars in the lower third, under the price line.
          suggestedMax: maxCount * 3,
          title: { display: true, text: "Sales per day", color: THEME.muted },
          ticks: { color: THEME.muted, precision: 0 },
          // Only the price axis draws grid lines; two grids would be noise.
          grid: { drawOnChartArea: false },
        },
      },
    },
    plugins: [darkBackground],
  };
}

/**
 * Renders the chart as a PNG. Never throws on odd data: no usable points gives a "no sales"
 * image, so the command can always attach something.
 */
export async function renderPriceHistoryPng(input: PriceHistoryChartInput): Promise<Buffer> {
  const width = clampSide(input.width, 800);
  const height = clampSide(input.height, 400);
  const canvas = createCanvas(width, height);
  const config = priceHistoryChartConfig(input);
  if (config === undefined) {
    drawEmpty(
      canvas.getContext("2d"),
      width,
      height,
      `${shorten(input.name, MAX_TITLE)} · daily average price`,
      "No sales in this period",
    );
    return canvas.encode("png");
  }
  // chart.js types its canvas as the DOM's; @napi-rs/canvas implements the 2D API it uses.
  const chart = new Chart(canvas as unknown as ChartItem, config);
  try {
    return await canvas.encode("png");
  } finally {
    chart.destroy();
  }
}

export interface HistorySummary {
  /** Cents (may be fractional); undefined without any priced day. */
  min: number | undefined;
  max: number | undefined;
  /** Average price of the latest priced day. */
  last: number | undefined;
  /**
   * Percent change of the latest day's average against the latest day 7 to 14 days before it;
   * undefined when there is no such day (a comparison across a longer gap would not be "7d").
   */
  change7dPercent: number | undefined;
  totalSales: number;
}

/** The numbers quoted in the embed beside the chart. Days without sales are ignored for prices. */
export function summarizeHistory(points: readonly HistoryPoint[]): HistorySummary {
  const priced = points
    .filter(isPriced)
    .map((p) => ({ key: dayKey(p.day), ms: Date.parse(dayKey(p.day)), avg: p.avg_price }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const totalSales = points.reduce(
    (sum, p) => sum + (Number.isFinite(p.count) && p.count > 0 ? p.count : 0),
    0,
  );
  const lastPoint = priced[priced.length - 1];
  if (lastPoint === undefined) {
    return { min: undefined, max: undefined, last: undefined, change7dPercent: undefined, totalSales };
  }
  let min = Infinity;
  let max = -Infinity;
  for (const p of priced) {
    min = Math.min(min, p.avg);
    max = Math.max(max, p.avg);
  }
  let change7dPercent: number | undefined;
  if (!Number.isNaN(lastPoint.ms)) {
    const base = priced.findLast(
      (p) => p.ms <= lastPoint.ms - 7 * DAY_MS && p.ms >= lastPoint.ms - 14 * DAY_MS,
    );
    if (base !== undefined) change7dPercent = ((lastPoint.avg - base.avg) / base.avg) * 100;
  }
  return { min, max, last: lastPoint.avg, change7dPercent, totalSales };
}
