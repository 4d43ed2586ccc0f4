// The address scheduler: a sliding-window budget shared by priority, learned from 429s that hit
// several keys together, with headroom kept for the feed and for people waiting on a command.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createScheduler,
  parseAddressBudget,
  type Priority,
  type Scheduler,
} from "../../src/market/scheduler.ts";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Asks for `n` admissions of `priority`; returns the order in which they were admitted. */
function ask(s: Scheduler, priority: Priority, n: number, log: string[]): void {
  for (let i = 0; i < n; i++) void s.admit(priority).then(() => log.push(priority));
}

describe("address scheduler", () => {
  it("GIVEN a budget of 10 a second WHEN background polls ask for 10 THEN only 4 go now, AND a command still goes at once", async () => {
    const s = createScheduler({ budget: { limit: 10, windowMs: 1000 } });
    const log: string[] = [];
    ask(s, "background", 10, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toHaveLength(4);
    ask(s, "command", 1, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe("command");
    expect(s.stats().waiting.background).toBe(6);
    // What background pollers may plan with: 45% of the window, less what higher priorities sent.
    expect(s.rateFor("background")).toBeCloseTo(3.5, 5);
  });

  it("GIVEN a full window WHEN background, feed and a command wait THEN they leave as the window frees: command, feed, then background", async () => {
    const s = createScheduler({ budget: { limit: 10, windowMs: 1000 } });
    const log: string[] = [];
    ask(s, "command", 10, log);
    await vi.advanceTimersByTimeAsync(0);
    log.length = 0;
    ask(s, "background", 2, log);
    ask(s, "feed", 2, log);
    ask(s, "command", 1, log);
    await vi.advanceTimersByTimeAsync(500);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(700); // the window and its 100 ms margin
    // The whole window freed at once: the command and the feed first; background only up to its 45%.
    expect(log.slice(0, 3)).toEqual(["command", "feed", "feed"]);
    expect(log.filter((p) => p === "background")).toHaveLength(1);
    expect(s.stats().sentInWindow).toBe(4);
  });

  it("GIVEN no budget WHEN 429s hit two keys within two seconds THEN a budget is learned from what went out, AND everything waits, commands first once the window allows", async () => {
    const s = createScheduler({ learnedWindowMs: 60_000 });
    const log: string[] = [];
    ask(s, "background", 50, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toHaveLength(50);
    expect(s.rateFor("background")).toBe(Infinity);

    s.refused("key-a", 5000);
    expect(s.stats().source).toBe("none"); // one key alone: its own budget, not the address's
    await vi.advanceTimersByTimeAsync(500);
    s.refused("key-b", 5000);
    const stats = s.stats();
    expect(stats.source).toBe("learned");
    // 50 went out, 2 of them refused: 90% of the 48 the address let through.
    expect(stats.budget).toEqual({ limit: 43, windowMs: 60_000 });
    expect(stats.addressRefusals).toBe(1);

    const after: string[] = [];
    ask(s, "feed", 1, after);
    ask(s, "command", 1, after);
    await vi.advanceTimersByTimeAsync(5000);
    expect(after).toEqual([]); // held, and the learned window is still full
    await vi.advanceTimersByTimeAsync(61_000);
    expect(after).toEqual(["command", "feed"]);
    // 45% of the learned window, less the command and the feed just sent.
    expect(s.rateFor("background")).toBeCloseTo((43 * 0.45 - 2) / 60, 5);
  });

  it("GIVEN a configured budget WHEN several keys are refused THEN the budget stays as configured (only the hold applies)", async () => {
    const s = createScheduler({ budget: { limit: 600, windowMs: 300_000 } });
    s.refused("a", 1000);
    s.refused("b", 1000);
    expect(s.stats()).toMatchObject({ source: "configured", budget: { limit: 600, windowMs: 300_000 } });
    const log: string[] = [];
    ask(s, "feed", 1, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1001);
    expect(log).toEqual(["feed"]);
  });
});

describe("MARKET_ADDRESS_BUDGET", () => {
  it("GIVEN the accepted spellings WHEN parsed THEN they give requests per window; off gives none; junk is refused", () => {
    expect(parseAddressBudget("600/5m")).toEqual({ limit: 600, windowMs: 300_000 });
    expect(parseAddressBudget("600/300s")).toEqual({ limit: 600, windowMs: 300_000 });
    expect(parseAddressBudget("20 / 60")).toEqual({ limit: 20, windowMs: 60_000 });
    expect(parseAddressBudget("off")).toBeUndefined();
    expect(() => parseAddressBudget("lots")).toThrow(/600\/5m/);
    expect(() => parseAddressBudget("0/5m")).toThrow(/at least 1 request/);
  });
});

describe("address scheduler: ceilings, not rank, hold a request back", () => {
  it("GIVEN deadline polls waiting at their 55% ceiling WHEN the feed asks THEN the feed still goes, up to its 80%", async () => {
    const s = createScheduler({ budget: { limit: 20, windowMs: 1000 } });
    const log: string[] = [];
    ask(s, "deadline", 15, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toHaveLength(11); // 55% of 20
    ask(s, "feed", 6, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.filter((p) => p === "feed")).toHaveLength(5); // up to 16 in the window (80%)
    expect(s.stats().waiting).toMatchObject({ deadline: 4, feed: 1 });
  });

  it("GIVEN the feed's polls and commands in the window WHEN deadline polls ask THEN they also use what the feed sent of its 25%, AND the feed keeps the rest of its share", async () => {
    const s = createScheduler({ budget: { limit: 20, windowMs: 1000 } });
    const log: string[] = [];
    ask(s, "feed", 3, log);
    ask(s, "command", 6, log);
    await vi.advanceTimersByTimeAsync(0);
    log.length = 0;
    // 9 in the window: at 55% (11) alone, 2 deadline polls could go; the feed's own 3 count for them.
    ask(s, "deadline", 10, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toHaveLength(5);
    // The feed's share is 5 (55% to 80% of 20): it sent 3, and its other 2 are still free for it.
    ask(s, "feed", 3, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.filter((p) => p === "feed")).toHaveLength(2);
    expect(s.stats().waiting).toMatchObject({ deadline: 5, feed: 1 });
    // Background polls gain nothing from it: still 45%, counting everything.
    expect(s.rateFor("background")).toBeCloseTo(1, 5);
  });

  it("GIVEN two keys refused at once WHEN their headers say each key had spent its own budget THEN nothing is learned about the address", () => {
    const s = createScheduler({ learnedWindowMs: 60_000 });
    s.refused("key-a", 1000, { keyExhausted: true });
    s.refused("key-b", 1000, { keyExhausted: true });
    expect(s.stats()).toMatchObject({ source: "none", addressRefusals: 0, heldUntil: undefined });
  });

  it("GIVEN a budget WHEN the feed asks how often it may poll THEN it gets its 25% share of the window; without a budget, no floor", () => {
    expect(createScheduler({ budget: { limit: 600, windowMs: 300_000 } }).feedSpacingMs()).toBe(2000);
    expect(createScheduler().feedSpacingMs()).toBe(0);
  });
});
