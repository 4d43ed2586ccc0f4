// A marketplace that allows each key 20 requests a minute: the running engine (feed, trade and bid
// pollers together) stays inside every key's budget, and the feed spreads its share evenly, so a
// new listing waits about half the budget's read interval (3 s) for its alert, not a window reset.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEngine } from "../../../src/background/engine.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

const BUDGET = { limit: 20, windowMs: 60_000 };
/** The best a poller can do on this budget: one read every window / limit, half of it on average. */
const OPTIMUM_MS = BUDGET.windowMs / BUDGET.limit / 2;
const RUN_MS = 75_000;
const LISTINGS = 40;

let w: World;
let engine: AlertEngine | undefined;

beforeAll(async () => {
  w = await startWorld({ sandboxRateLimit: BUDGET });
});

afterAll(async () => {
  await engine?.stop();
  await w?.close();
});

/**
 * Random times in [0, span), sorted: independent of the feed's rhythm (times on a grid near the
 * read interval would all fall at the same point of the feed's cycle).
 */
function randomTimes(count: number, span: number): number[] {
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  return Array.from({ length: count }, () => rnd() * span).sort((a, b) => a - b);
}

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
};

describe("a marketplace allowing 20 requests a minute per key", () => {
  it(
    "GIVEN two linked traders and a watch rule WHEN listings arrive for over a minute THEN no request gets a 429 and the median alert comes within 1.2 x the optimum + 100 ms",
    async () => {
      const alice = w.double.user("alice");
      const aliceId = await w.linkUser(alice, w.demo("alice"));
      await w.linkUser(w.double.user("bob"), w.demo("bob"));
      const item = uniqueItemName("budget");
      const ruleId = await w.addRule(aliceId, "budget", { item });
      engine = w.engine();
      await engine.start();
      const started = Date.now();
      const marked = await waitFor(async () => engine?.stats().feed.mark !== undefined, 20_000);
      expect(marked).toBe(true);

      const created = new Map<string, number>();
      for (const at of randomTimes(LISTINGS, RUN_MS - (Date.now() - started))) {
        const wait = started + at - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 700 });
        created.set(listing.id, Date.parse(listing.created_at));
      }
      const alerted = async () => (await w.db.prisma.alertLog.count({ where: { ruleId } })) >= LISTINGS;
      expect(await waitFor(alerted, 4 * OPTIMUM_MS * 2)).toBe(true);

      const rows = await w.db.prisma.alertLog.findMany({
        where: { ruleId },
        select: { subjectId: true, createdAt: true },
      });
      const latencies = rows
        .map((r) => r.createdAt.getTime() - (created.get(r.subjectId) ?? Number.NaN))
        .sort((a, b) => a - b);
      expect(latencies).toHaveLength(LISTINGS);
      const median = latencies[Math.floor(latencies.length / 2)] as number;
      expect(median).toBeLessThanOrEqual(1.2 * OPTIMUM_MS + 100);

      let refused = 0;
      for (const route of Object.values(w.sandbox.control.stats().routes))
        refused += route.byStatus["429"] ?? 0;
      expect(refused).toBe(0);
    },
    RUN_MS + 60_000,
  );
});
