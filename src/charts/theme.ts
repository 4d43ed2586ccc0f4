// What every chart image shares: Discord's dark theme (so the image sits in an embed without a
// bright box around it), the background plugin, and the picture of a period with nothing to draw.
import type { SKRSContext2D } from "@napi-rs/canvas";
import type { Plugin } from "chart.js";
import { CHART_FONT_FAMILY } from "./fonts.ts";

export const DARK = {
  background: "#2b2d31",
  text: "#dbdee1",
  muted: "#949ba4",
  grid: "rgba(255, 255, 255, 0.08)",
} as const;

/** Fills the canvas with the theme's background before chart.js draws. */
export const darkBackground: Plugin = {
  id: "darkBackground",
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = DARK.background;
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

/** The title, and a line saying there is nothing to draw, on the theme's background. */
export function drawEmpty(
  ctx: SKRSContext2D,
  width: number,
  height: number,
  title: string,
  message: string,
): void {
  ctx.fillStyle = DARK.background;
  ctx.fillRect(0, 0, width, height);
  ctx.textAlign = "center";
  ctx.fillStyle = DARK.text;
  ctx.font = `bold 18px ${CHART_FONT_FAMILY}`;
  ctx.fillText(title, width / 2, 36);
  ctx.fillStyle = DARK.muted;
  ctx.font = `16px ${CHART_FONT_FAMILY}`;
  ctx.fillText(message, width / 2, height / 2);
}
