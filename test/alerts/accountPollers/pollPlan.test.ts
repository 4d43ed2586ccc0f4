// Polling by need: within the address budget, a user whose trade deadline is near is read every
// cycle, users with open trades or bids often, idle users rarely and oldest-read first.
import { describe, expect, it } from "vitest";
import { createPollPlanner } from "../../../src/accountPollers/pollPlan.ts";

const users = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: from + i }));

function planner(rate: number) {
  let t = 1_000_000;
  const p = createPollPlanner({ intervalMs: 30_000, backgroundRate: () => rate, now: () => t });
  return { p, advance: (ms: number) => (t += ms) };
}

describe("poll plan", () => {
  it("GIVEN 1 request a second for background WHEN 3 urgent, 10 hot and 1,000 idle users are planned THEN urgent ones come first at the deadline priority AND one cycle stays within 15 users (30 requests)", () => {
    const { p } = planner(1);
    const all = users(1, 1013);
    const urgent = new Set([1, 2, 3]);
    const hot = new Set([1, 2, 3, ...users(4, 10).map((u) => u.id)]);
    const plan = p.plan(all, { urgent, hot });
    expect(plan.slice(0, 3).map((x) => [x.user.id, x.priority])).toEqual([
      [1, "deadline"],
      [2, "deadline"],
      [3, "deadline"],
    ]);
    expect(plan).toHaveLength(15);
    // Hot users before idle ones, all at background priority.
    expect(plan.slice(3, 13).every((x) => hot.has(x.user.id) && x.priority === "background")).toBe(true);
    expect(plan.slice(13).every((x) => !hot.has(x.user.id))).toBe(true);
  });

  it("GIVEN users read this cycle WHEN the next cycle is planned THEN they wait their period: idle ones are read oldest first, and their period stretches with their number", () => {
    const { p, advance } = planner(1);
    const all = users(1, 1000);
    const need = { urgent: new Set<number>(), hot: new Set<number>() };
    const first = p.plan(all, need).map((x) => x.user.id);
    for (const id of first) p.polled(id);
    advance(30_000);
    const second = p.plan(all, need).map((x) => x.user.id);
    expect(second.some((id) => first.includes(id))).toBe(false);
    // 1,000 idle users at 2 requests each on what is left of 1 request a second: far apart.
    expect(p.periods(0, 1000).idleEveryMs).toBeGreaterThanOrEqual(1000 * 2 * 1000);
    expect(p.periods(0, 10).idleEveryMs).toBe(300_000); // few users: the 10-cycle floor
  });

  it("GIVEN many hot users WHEN the budget is small THEN their period stretches too rather than crowding the feed out", () => {
    const { p } = planner(0.5);
    expect(p.periods(200, 0).hotEveryMs).toBeGreaterThan(30_000);
    expect(planner(Infinity).p.periods(200, 10_000)).toEqual({ hotEveryMs: 30_000, idleEveryMs: 300_000 });
  });

  it("GIVEN idle users WHEN the feed reads a listing of one and later sees it leave the market THEN that seller turns hot, then urgent (read first, at the deadline priority)", () => {
    const { p, advance } = planner(0.2);
    const all = Array.from({ length: 500 }, (_, i) => ({ id: i + 1, platformId: `7656${i + 1}` }));
    const none = { urgent: new Set<number>(), hot: new Set<number>() };
    for (const x of p.plan(all, none)) p.polled(x.user.id);
    advance(30_000);
    const seller = all[400] as { id: number; platformId: string };
    expect(p.plan(all, none).some((x) => x.user.id === seller.id)).toBe(false);

    p.noteListings([{ id: "9001", sellerPlatformId: seller.platformId }]);
    p.noteGone(["9001"]);
    const next = p.plan(all, none);
    expect(next[0]).toEqual({ user: seller, priority: "deadline" });
    p.polled(seller.id);
    advance(30_000);
    // Urgent once; afterwards hot (a listing seen this week), read ahead of idle users.
    const later = p.plan(all, none);
    expect(later.some((x) => x.user.id === seller.id && x.priority === "deadline")).toBe(false);
  });
});
