// Price-history chart: always a valid PNG of the asked size, dark background, and the summary numbers.
import { describe, expect, it } from "vitest";
import { createCanvas, GlobalFonts, loadImage } from "@napi-rs/canvas";
import { CHART_FONT_FAMILY } from "../../src/charts/fonts.ts";
import type { HistoryPoint } from "../../src/market/schemas.ts";
import {
  dayTicks,
  priceHistoryChartConfig,
  renderPriceHistoryPng,
  summarizeHistory,
} from "../../src/charts/priceHistory.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BACKGROUND = [0x2b, 0x2d, 0x31];
const LINE = [0x58, 0x65, 0xf2];

function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  // The first chunk is IHDR: length (4 bytes), type (4), then width and height as big-endian u32.
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

async function pixels(
  png: Buffer,
): Promise<{ at(x: number, y: number): number[]; count(rgb: number[]): number }> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, image.width, image.height).data;
  const close = (i: number, rgb: number[]) => rgb.every((c, k) => Math.abs((data[i + k] ?? -999) - c) <= 6);
  return {
    at: (x, y) => [...data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3)],
    count: (rgb) => {
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (close(i, rgb)) n++;
      return n;
    },
  };
}

function days(
  count: number,
  price: (i: number) => number,
  sales = (i: number) => 1 + (i % 5),
): HistoryPoint[] {
  return Array.from({ length: count }, (_, i) => ({
    day: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10),
    count: sales(i),
    avg_price: price(i),
  }));
}

/** Pixels brighter than anything but text (the dark background, grid, line and bars are dimmer). */
async function brightPixels(
  png: Buffer,
  box: { x: number; y: number; w: number; h: number },
): Promise<number> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(box.x, box.y, box.w, box.h).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    const luma = 0.299 * (data[i] ?? 0) + 0.587 * (data[i + 1] ?? 0) + 0.114 * (data[i + 2] ?? 0);
    if (luma > 140) n++;
  }
  return n;
}

/** The same chart with every glyph left out: the canvas's fillText and strokeText draw nothing meanwhile. */
async function renderWithoutText(input: Parameters<typeof renderPriceHistoryPng>[0]): Promise<Buffer> {
  const proto = Object.getPrototypeOf(createCanvas(1, 1).getContext("2d")) as {
    fillText: unknown;
    strokeText: unknown;
  };
  const { fillText, strokeText } = proto;
  proto.fillText = () => undefined;
  proto.strokeText = () => undefined;
  try {
    return await renderPriceHistoryPng(input);
  } finally {
    proto.fillText = fillText;
    proto.strokeText = strokeText;
  }
}

/** Pixels of `box` that differ between two PNGs of the same size (any channel by more than 24). */
async function differingPixels(
  a: Buffer,
  b: Buffer,
  box: { x: number; y: number; w: number; h: number },
): Promise<number> {
  const read = async (png: Buffer) => {
    const image = await loadImage(png);
    const canvas = createCanvas(image.width, image.height);
    const ctx = canvas.getContext("2d");
    ctx.drawImage(image, 0, 0);
    return ctx.getImageData(box.x, box.y, box.w, box.h).data;
  };
  const [pa, pb] = await Promise.all([read(a), read(b)]);
  let n = 0;
  for (let i = 0; i < pa.length; i += 4) {
    if ([0, 1, 2].some((k) => Math.abs((pa[i + k] ?? 0) - (pb[i + k] ?? 0)) > 24)) n++;
  }
  return n;
}

describe("renderPriceHistoryPng", () => {
  it("GIVEN the shipped font WHEN a chart is rendered THEN its title and axis areas differ from a text-free render of the same chart", async () => {
    expect(GlobalFonts.has(CHART_FONT_FAMILY), "the shipped font is registered").toBe(true);
    const input = {
      name: "Falcon Rifle | Ember Tide (Field Worn)",
      points: days(30, (i) => 1000 + i * 10),
    };
    const png = await renderPriceHistoryPng(input);
    const bare = await renderWithoutText(input);
    const titleBand = { x: 0, y: 0, w: 800, h: 45 };
    const priceTicks = { x: 0, y: 60, w: 70, h: 280 };
    const dateTicks = { x: 80, y: 360, w: 640, h: 40 };

    // The text-free render really has none: nothing bright in its title band.
    expect(await brightPixels(bare, titleBand)).toBe(0);
    expect(await differingPixels(png, bare, titleBand)).toBeGreaterThan(400);
    expect(await differingPixels(png, bare, priceTicks)).toBeGreaterThan(100);
    expect(await differingPixels(png, bare, dateTicks)).toBeGreaterThan(100);
    // Glyphs, not a smudge: a longer title draws more of them.
    const short = await renderPriceHistoryPng({ ...input, name: "I" });
    expect(await brightPixels(png, titleBand)).toBeGreaterThan((await brightPixels(short, titleBand)) + 300);
  });

  it("GIVEN 30 days of prices WHEN rendered THEN an 800x400 PNG with a dark background and the price line", async () => {
    const png = await renderPriceHistoryPng({
      name: "Falcon Rifle | Ember Tide (Pristine)",
      points: days(30, (i) => 12000 + i * 37.5),
      sales: [{ price: 11800, soldAt: "2025-01-20T10:00:00Z" }],
    });
    expect(pngSize(png)).toEqual({ width: 800, height: 400 });
    const px = await pixels(png);
    expect(px.at(2, 2)).toEqual(BACKGROUND);
    expect(px.count(LINE)).toBeGreaterThan(200);
  });

  it("GIVEN a width and height WHEN rendered THEN the PNG has that size", async () => {
    const png = await renderPriceHistoryPng({
      name: "x",
      points: days(10, () => 500),
      width: 640,
      height: 320,
    });
    expect(pngSize(png)).toEqual({ width: 640, height: 320 });
  });

  it("GIVEN an absurd size WHEN rendered THEN it is clamped rather than allocating gigabytes", async () => {
    const png = await renderPriceHistoryPng({
      name: "x",
      points: days(3, () => 500),
      width: 100_000,
      height: 1,
    });
    expect(pngSize(png)).toEqual({ width: 2000, height: 200 });
  });

  it("GIVEN no points WHEN rendered THEN a PNG saying there were no sales, not an error", async () => {
    const png = await renderPriceHistoryPng({ name: "Quiet Item", points: [] });
    expect(pngSize(png)).toEqual({ width: 800, height: 400 });
    const px = await pixels(png);
    expect(px.at(2, 2)).toEqual(BACKGROUND);
    expect(px.count(LINE)).toBe(0);
    // The message is drawn in the middle: not every pixel there is background.
    expect(px.count(BACKGROUND)).toBeLessThan(800 * 400);
  });

  it("GIVEN only days without sales or with broken numbers WHEN rendered THEN the no-sales PNG", async () => {
    const points: HistoryPoint[] = [
      { day: "2025-01-01", count: 0, avg_price: 0 },
      { day: "2025-01-02", count: 3, avg_price: Number.NaN },
      { day: "2025-01-03", count: -1, avg_price: 500 },
    ];
    const png = await renderPriceHistoryPng({ name: "Broken", points });
    expect(pngSize(png)).toEqual({ width: 800, height: 400 });
    expect((await pixels(png)).count(LINE)).toBe(0);
  });

  it("GIVEN a single point WHEN rendered THEN a PNG with that point drawn", async () => {
    const png = await renderPriceHistoryPng({
      name: "One Day",
      points: [{ day: "2025-02-01", count: 1, avg_price: 555.5 }],
    });
    expect(pngSize(png)).toEqual({ width: 800, height: 400 });
    expect((await pixels(png)).count(LINE)).toBeGreaterThan(10);
  });

  it("GIVEN 400 days and sales WHEN rendered THEN a PNG", async () => {
    const sales = Array.from({ length: 200 }, (_, i) => ({
      price: 900 + i,
      soldAt: new Date(Date.UTC(2024, 5, 1 + i)).toISOString(),
    }));
    const png = await renderPriceHistoryPng({
      name: "Busy",
      points: days(400, (i) => 800 + i * 2.25),
      sales,
    });
    expect(pngSize(png)).toEqual({ width: 800, height: 400 });
    expect((await pixels(png)).count(LINE)).toBeGreaterThan(200);
  });
});

describe("priceHistoryChartConfig", () => {
  const DAY = 86_400_000;
  // Sales on the 1st, 2nd and 9th: the week-long gap must look like one.
  const uneven: HistoryPoint[] = [
    { day: "2025-03-01", count: 2, avg_price: 1000 },
    { day: "2025-03-02", count: 1, avg_price: 4000 },
    { day: "2025-03-09", count: 3, avg_price: 1200 },
  ];

  it("GIVEN days with a gap WHEN the chart is configured THEN the x axis is linear over timestamps, so points sit at their real distance", () => {
    const config = priceHistoryChartConfig({ name: "Gappy", points: uneven });
    const x = config?.options?.scales?.x;
    expect(x?.type).toBe("linear");
    const line = config?.data.datasets[0];
    const xs = (line?.data ?? []).map((p) => p.x);
    expect(xs).toEqual([Date.UTC(2025, 2, 1), Date.UTC(2025, 2, 2), Date.UTC(2025, 2, 9)]);
    // Seven times as far from the 2nd to the 9th as from the 1st to the 2nd.
    expect(((xs[2] ?? 0) - (xs[1] ?? 0)) / ((xs[1] ?? 0) - (xs[0] ?? 0))).toBe(7);
    expect(x && "min" in x ? x.min : undefined).toBe(Date.UTC(2025, 2, 1) - DAY / 2);
    expect(x && "max" in x ? x.max : undefined).toBe(Date.UTC(2025, 2, 9) + DAY / 2);
  });

  it("GIVEN the x axis WHEN its ticks are placed and labelled THEN they fall on whole days, at most about ten, and read as dates", () => {
    const x = priceHistoryChartConfig({ name: "Gappy", points: uneven })?.options?.scales?.x;
    const axis = { ticks: [] as { value: number }[] };
    (x as { afterBuildTicks?: (a: typeof axis) => void } | undefined)?.afterBuildTicks?.(axis);
    expect(axis.ticks.map((t) => t.value)).toEqual(
      Array.from({ length: 9 }, (_, i) => Date.UTC(2025, 2, 1 + i)),
    );
    const callback = (x?.ticks as { callback?: (v: number) => string } | undefined)?.callback;
    expect(callback?.(Date.UTC(2025, 2, 9))).toBe("Mar 9");
    const yearTicks = dayTicks(Date.UTC(2024, 0, 1), Date.UTC(2024, 11, 30), 61);
    expect(yearTicks.length).toBeLessThanOrEqual(10);
    expect(yearTicks.every((t) => t % DAY === 0)).toBe(true);
  });

  it("GIVEN three days with a spike WHEN the chart is configured THEN the price line is monotone, so it cannot overshoot", () => {
    const line = priceHistoryChartConfig({ name: "Spike", points: uneven })?.data.datasets[0];
    expect(line && "cubicInterpolationMode" in line ? line.cubicInterpolationMode : undefined).toBe(
      "monotone",
    );
  });

  it("GIVEN a sale during a day WHEN the chart is configured THEN its dot sits at its time, not at the day's start", () => {
    const soldAt = "2025-03-02T18:00:00Z";
    const dots = priceHistoryChartConfig({ name: "Sale", points: uneven, sales: [{ price: 3900, soldAt }] })
      ?.data.datasets[2];
    expect(dots?.data).toEqual([{ x: Date.parse(soldAt), y: 39 }]);
  });

  it("GIVEN nothing priced WHEN the chart is configured THEN there is nothing to draw", () => {
    expect(
      priceHistoryChartConfig({ name: "Empty", points: [{ day: "2025-03-01", count: 0, avg_price: 0 }] }),
    ).toBe(undefined);
  });
});

describe("summarizeHistory", () => {
  it("GIVEN unsorted days with an empty one WHEN summarised THEN min, max and last ignore the empty day", () => {
    const points: HistoryPoint[] = [
      { day: "2025-01-15", count: 4, avg_price: 11000 },
      { day: "2025-01-08", count: 2, avg_price: 10000 },
      { day: "2025-01-10", count: 0, avg_price: 0 },
      { day: "2025-01-12", count: 5, avg_price: 12500.5 },
    ];
    expect(summarizeHistory(points)).toEqual({
      min: 10000,
      max: 12500.5,
      last: 11000,
      change7dPercent: 10,
      totalSales: 11,
    });
  });

  it("GIVEN no day 7 to 14 days before the last WHEN summarised THEN there is no 7-day change", () => {
    const recentOnly = summarizeHistory([
      { day: "2025-01-14", count: 1, avg_price: 100 },
      { day: "2025-01-15", count: 1, avg_price: 200 },
    ]);
    expect(recentOnly.change7dPercent).toBeUndefined();
    expect(recentOnly.last).toBe(200);
    const tooOld = summarizeHistory([
      { day: "2024-12-01", count: 1, avg_price: 100 },
      { day: "2025-01-15", count: 1, avg_price: 200 },
    ]);
    expect(tooOld.change7dPercent).toBeUndefined();
  });

  it("GIVEN several days in the 7-14 day window WHEN summarised THEN the latest of them is the base", () => {
    const summary = summarizeHistory([
      { day: "2025-01-02", count: 1, avg_price: 50 },
      { day: "2025-01-07", count: 1, avg_price: 80 },
      { day: "2025-01-15", count: 1, avg_price: 100 },
    ]);
    expect(summary.change7dPercent).toBe(25);
  });

  it("GIVEN no points WHEN summarised THEN nothing is made up", () => {
    expect(summarizeHistory([])).toEqual({
      min: undefined,
      max: undefined,
      last: undefined,
      change7dPercent: undefined,
      totalSales: 0,
    });
  });
});
