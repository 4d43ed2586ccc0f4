// How the weekly missed-deal report reads: the counts, the median in a compact duration, the net only when there is one.
import { describe, expect, it } from "vitest";
import { toOutboxPayload, type WeeklyReportAlert } from "../../src/outbox/payload.ts";
import { alertLine, renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import { weeklyReportText } from "../../src/discord/render/alerts/notices.ts";
import { compactDuration } from "../../src/discord/render/format.ts";

const report = (over: Partial<WeeklyReportAlert>): WeeklyReportAlert => ({
  kind: "weekly_report",
  week: "2026-W48",
  alerted: 14,
  missed: 6,
  medianGoneAfterMs: 9_000,
  netCents: 12_345,
  ...over,
});

describe("the weekly report", () => {
  it("GIVEN missed deals with a net THEN the sentence gives the counts, the median and the net in dollars", () => {
    expect(weeklyReportText(report({}))).toBe(
      "This week: 14 deals alerted, 6 missed (sold before you acted, median 9 s after the alert); they would have netted $123.45 at reference after fees.",
    );
  });

  it("GIVEN one missed deal and no profitable reference THEN singular words and no net clause", () => {
    expect(weeklyReportText(report({ alerted: 1, missed: 1, medianGoneAfterMs: 150_000, netCents: 0 }))).toBe(
      "This week: 1 deal alerted, 1 missed (sold before you acted, median 3 min after the alert).",
    );
  });

  it("GIVEN nothing missed THEN it says so", () => {
    expect(weeklyReportText(report({ alerted: 3, missed: 0, netCents: 0 }))).toBe(
      "This week: 3 deals alerted, none missed.",
    );
  });

  it("GIVEN the payload THEN it survives the outbox and renders as a DM without buttons and as a digest line", () => {
    const alert = toOutboxPayload(report({})).alert;
    const rendered = renderAlert(alert, "42");
    expect(rendered.components).toEqual([]);
    expect(rendered.embeds[0]?.description).toContain("6 missed");
    if (alert.kind !== "weekly_report") throw new Error("kind changed");
    expect(alertLine(alert)).toContain("14 deals alerted");
    expect(() => toOutboxPayload({ ...report({}), week: "W48" })).toThrow();
  });
});

describe("compact durations", () => {
  it("GIVEN spans from milliseconds to days THEN short human units", () => {
    expect([0, 4_400, 89_000, 120_000, 5_400_000, 86_400_000 * 3].map(compactDuration)).toEqual([
      "1 s",
      "4 s",
      "89 s",
      "2 min",
      "1.5 h",
      "3.0 days",
    ]);
  });
});
