// Cumulative profit-and-loss PNG for /portfolio chart: a stepped line through every P&L event of
// the period, green above zero and red below, on Discord's dark theme.
import { createCanvas } from "@napi-rs/canvas";
import { Chart, registerables, type ChartConfiguration, type ChartItem } from "chart.js";
import type { Cents } from "../money.ts";
import { CHART_FONT_FAMILY, registerChartFont } from "./fonts.ts";
import { DARK, darkBackground, drawEmpty } from "./theme.ts";

const THEME = {
  ...DARK,
  zero: "rgba(255, 255, 255, 0.35)",
  gain: "#23a55a",
  loss: "#f23f43",
} as const;
const WIDTH = 800;
const HEIGHT = 400;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

registerChartFont();
Chart.register(...registerables);

export interface PnlChartInput {
  readonly title: string;
  /** Cumulative P&L after each event, oldest first. */
  readonly series: readonly { readonly at: Date; readonly cumulativeCents: Cents }[];
}

const label = (d: Date) =>
  `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;

/** Never throws on odd data: an empty period draws its title and "No profit or loss yet". */
export async function renderPnlPng(input: PnlChartInput): Promise<Buffer> {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const title = [...input.title.replace(/\p{Cc}/gu, " ")].slice(0, 80).join("");
  if (input.series.length === 0) {
    drawEmpty(canvas.getContext("2d"), WIDTH, HEIGHT, title, "No profit or loss in this period");
    return canvas.encode("png");
  }
  // The line starts at zero, just before the first event.
  const points = [
    { label: "start", value: 0 },
    ...input.series.map((p) => ({ label: label(p.at), value: p.cumulativeCents / 100 })),
  ];
  const last = points[points.length - 1]?.value ?? 0;
  const colour = last >= 0 ? THEME.gain : THEME.loss;
  const config: ChartConfiguration<"line", number[], string> = {
    type: "line",
    data: {
      labels: points.map((p) => p.label),
      datasets: [
        {
          label: "Cumulative P&L after fees (USD)",
          data: points.map((p) => p.value),
          stepped: "before",
          borderColor: colour,
          backgroundColor: colour,
          borderWidth: 2,
          pointRadius: points.length > 60 ? 0 : 3,
        },
      ],
    },
    options: {
      animation: false,
      responsive: false,
      maintainAspectRatio: false,
      layout: { padding: 12 },
      font: { family: CHART_FONT_FAMILY },
      plugins: {
        title: { display: true, text: title, color: THEME.text, font: { size: 16, weight: "bold" } },
        legend: { labels: { color: THEME.text, boxWidth: 12 } },
        tooltip: { enabled: false },
      },
      scales: {
        x: { ticks: { color: THEME.muted, maxTicksLimit: 8, maxRotation: 0 }, grid: { color: THEME.grid } },
        y: {
          ticks: { color: THEME.muted, callback: (v) => `$${Number(v).toLocaleString("en-US")}` },
          grid: {
            color: (c: { tick?: { value: number } }) => (c.tick?.value === 0 ? THEME.zero : THEME.grid),
          },
        },
      },
    },
    plugins: [darkBackground],
  };
  // chart.js types its canvas as the DOM's; @napi-rs/canvas implements the 2D API it uses.
  const chart = new Chart(canvas as unknown as ChartItem, config);
  try {
    return await canvas.encode("png");
  } finally {
    chart.destroy();
  }
}
