// The one font charts are drawn with, shipped as an npm package and registered with the canvas's
// own font registry: a slim image has no system fonts, and a chart without text tells nothing.
import { createRequire } from "node:module";
import { GlobalFonts } from "@napi-rs/canvas";

/** The family name charts ask for; nothing else (no system fallback that may be missing). */
export const CHART_FONT_FAMILY = "ChartSans";

const FACES = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"] as const;

let registered = false;

/** Registers the chart font once; throws if the font files are missing (a broken install). */
export function registerChartFont(): void {
  if (registered) return;
  const require = createRequire(import.meta.url);
  for (const face of FACES) {
    const file = require.resolve(`dejavu-fonts-ttf/ttf/${face}`);
    if (GlobalFonts.registerFromPath(file, CHART_FONT_FAMILY) === null) {
      throw new Error(`the chart font ${face} could not be registered`);
    }
  }
  registered = true;
}
