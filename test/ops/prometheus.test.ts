// A real Prometheus scraping a running bot: the FeedStalled rule of monitoring/prometheus/alerts.yml
// fires while the marketplace's listing feed is down and clears once it recovers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBot, type Bot } from "../support/harness.ts";
import {
  dashboardExpressions,
  missingBinaryNotice,
  PROMETHEUS_BIN,
  readAlertRules,
  startPrometheus,
  type RunningPrometheus,
} from "./prometheusSupport.ts";
import { eventually } from "./support.ts";

const absent = missingBinaryNotice(PROMETHEUS_BIN);

/**
 * The rule as committed, with its threshold (120 s) and duration (1m) shortened so the test runs in
 * seconds; `promtool test rules` (alertRules.test.ts) checks the real numbers.
 */
function shortenedFeedStalled() {
  const rule = readAlertRules().find((r) => r.alert === "FeedStalled");
  if (rule === undefined) throw new Error("alerts.yml has no FeedStalled rule");
  const expr = rule.expr.replace(/>\s*120\s*$/, "> 3");
  if (expr === rule.expr) throw new Error(`FeedStalled's threshold moved: update this test (${rule.expr})`);
  return { ...rule, expr, for: "2s" };
}

describe.skipIf(absent)("alerting with a real Prometheus", () => {
  let bot: Bot;
  let prometheus: RunningPrometheus;

  beforeAll(async () => {
    bot = await startBot({ env: { POLL_INTERVAL_MS: "500" } });
    prometheus = await startPrometheus(new URL(bot.app.http.url).host, [shortenedFeedStalled()]);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await bot?.stop();
  });

  it("GIVEN the Grafana dashboard's queries WHEN Prometheus runs them against the bot's metrics THEN it accepts every one", async () => {
    for (const expr of dashboardExpressions()) {
      const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      expect(res.status, expr).toBe(200);
    }
  });

  it("GIVEN Prometheus scraping the bot WHEN the listing feed stalls THEN FeedStalled fires, and WHEN the marketplace recovers THEN it clears", async () => {
    // Healthy first: the bot leads the feed and Prometheus has its samples, with nothing firing.
    await eventually(
      async () => (await prometheus.query('feed_leader{job="market-alerts-bot"}')) === 1,
      15_000,
      "Prometheus to scrape the bot as feed leader",
    );
    expect((await prometheus.alerts()).filter((a) => a.name === "FeedStalled")).toEqual([]);

    // The marketplace's listings endpoint answers 503 from now on: feed cycles fail, the lag grows.
    bot.sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "status", status: 503 });
    const firing = await eventually(
      async () => (await prometheus.alerts()).find((a) => a.name === "FeedStalled" && a.state === "firing"),
      30_000,
      "FeedStalled to fire",
    );
    expect(firing.labels.severity).toBe("page");
    expect(await prometheus.query("max(feed_lag_seconds)")).toBeGreaterThan(3);

    bot.sandbox.control.clearFaults();
    await eventually(
      async () => (await prometheus.alerts()).every((a) => a.name !== "FeedStalled"),
      40_000,
      "FeedStalled to clear",
    );
    expect(await prometheus.query("max(feed_lag_seconds)")).toBeLessThanOrEqual(3);
  }, 90_000);
});
