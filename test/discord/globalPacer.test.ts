// The bot's global pacer: a burst of half the limit (less the margin) leaves at once, later
// requests leave evenly spaced, no one-second span, whatever its phase, sees more than the limit
// less the margin, even when requests reach Discord late, requests leave in the order they asked,
// and requests without a bot token (interaction callbacks, webhooks) never wait.
import { describe, expect, it } from "vitest";
import { createGlobalPacer } from "../../src/discord/outbound/globalPacer.ts";

const AUTH = { headers: { Authorization: "Bot x" } };

describe("the global pacer", () => {
  it("GIVEN 130 authenticated requests at once WHEN paced at 50 a second with a margin of 2 THEN the first 24 leave at once, they leave in order, and no one-second span sees more than 48", async () => {
    const pacer = createGlobalPacer({ perSecond: 50 });
    const start = performance.now();
    const left: { i: number; at: number }[] = [];
    await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        pacer.slot(AUTH).then(() => left.push({ i, at: performance.now() })),
      ),
    );
    expect(pacer.limit).toBe(48);
    expect(pacer.burst).toBe(24);
    expect(left.map((l) => l.i)).toEqual([...Array(130).keys()]);
    const times = left.map((l) => l.at);
    expect((times[23] as number) - start).toBeLessThan(100);
    const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(most).toBeLessThanOrEqual(48);
  });

  it("GIVEN a full window of authenticated requests WHEN an interaction callback without a bot token asks THEN it leaves at once", async () => {
    const pacer = createGlobalPacer({ perSecond: 12 });
    const queued = Array.from({ length: 20 }, () => pacer.slot({ headers: [["authorization", "Bot x"]] }));
    const start = performance.now();
    await pacer.slot({ headers: { "content-type": "application/json" } });
    expect(performance.now() - start).toBeLessThan(50);
    await Promise.all(queued);
    expect(performance.now() - start).toBeGreaterThanOrEqual(pacer.windowMs - 5);
  });
});

/**
 * A clock that moves only when the pacer sleeps: a long fan-out is paced in no real time.
 * `lateMs`: every timer fires that much later than asked, as on a busy machine.
 */
function fakeClock(lateMs = 0) {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms + lateMs;
    },
  };
}

/** Times the requests left at, `count` of them asking at once at time 0. */
async function fanOut(count: number, lateMs = 0): Promise<number[]> {
  const clock = fakeClock(lateMs);
  const pacer = createGlobalPacer({ perSecond: 50, ...clock });
  const left: number[] = [];
  await Promise.all(Array.from({ length: count }, () => pacer.slot(AUTH).then(() => left.push(clock.now()))));
  return left;
}

/** The most requests that left within any span of `spanMs` (start included, end excluded). */
function mostWithin(times: readonly number[], spanMs: number): number {
  return Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + spanMs).length));
}

describe("the global pacer on a long fan-out", () => {
  it("GIVEN 500 authenticated requests at once WHEN paced at 50 a second THEN half the limit leaves at once and every later request leaves at least 1,025/48 ms after the one before", async () => {
    const left = await fanOut(500);
    expect(left.slice(0, 24).every((t) => t === 0)).toBe(true);
    const gaps = left.slice(24).map((t, i) => t - (left[i + 23] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1025 / 48 - 1e-9);
    // The spacing costs no throughput: 48 requests in each 1,025 ms, as the window alone allowed.
    expect((left[499] as number) / 1000).toBeLessThan(500 / (48 / 1.025) + 0.1);
  });

  it("GIVEN 500 requests paced at 50 a second WHEN each reaches Discord up to 60 ms late THEN no second as Discord counts it sees more than 50", async () => {
    // Requests delayed by 0 to 60 ms on their way (the network, a busy event loop) can bunch up:
    // the most that can arrive within one second is the most that left within 1,060 ms. Bursts
    // replayed a window apart let 96 do so.
    const left = await fanOut(500);
    expect(mostWithin(left, 1000 + 60)).toBeLessThanOrEqual(50);
  });

  it("GIVEN timers that fire 3 ms late WHEN 500 requests are paced THEN the fan-out keeps its rate and its limit", async () => {
    const left = await fanOut(500, 3);
    // Due times stay a spacing apart, not the late departures: the rate is the punctual one's.
    expect((left[499] as number) / 1000).toBeLessThan(500 / (48 / 1.025) + 0.1);
    expect(mostWithin(left, 1000)).toBeLessThanOrEqual(48);
  });
});
