// The bot's global pacer: authenticated requests leave at least one spacing apart (so no second,
// whatever its phase, sees more than the limit less the margin), in the order they asked, and
// requests without a bot token (interaction callbacks, webhooks) never wait.
import { describe, expect, it } from "vitest";
import { createGlobalPacer } from "../../src/discord/globalPacer.ts";

const AUTH = { headers: { Authorization: "Bot x" } };

describe("the global pacer", () => {
  it("GIVEN 150 authenticated requests at once WHEN paced at 100 a second with a margin of 2 THEN they leave in order, one spacing apart, and no one-second span sees more than 99", async () => {
    const pacer = createGlobalPacer({ perSecond: 100 });
    const left: { i: number; at: number }[] = [];
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        pacer.slot(AUTH).then(() => left.push({ i, at: performance.now() })),
      ),
    );
    expect(left.map((l) => l.i)).toEqual([...Array(150).keys()]);
    const times = left.map((l) => l.at);
    for (let k = 1; k < times.length; k++) {
      // A timer may fire late, never early: each request is at least one spacing after the last.
      expect((times[k] as number) - (times[k - 1] as number)).toBeGreaterThanOrEqual(pacer.spacingMs - 0.5);
    }
    const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(most).toBeLessThanOrEqual(99);
  });

  it("GIVEN a queue of authenticated requests WHEN an interaction callback without a bot token asks THEN it leaves at once", async () => {
    const pacer = createGlobalPacer({ perSecond: 50 });
    const queued = Array.from({ length: 25 }, () => pacer.slot({ headers: [["authorization", "Bot x"]] }));
    const start = performance.now();
    await pacer.slot({ headers: { "content-type": "application/json" } });
    expect(performance.now() - start).toBeLessThan(pacer.spacingMs);
    await Promise.all(queued);
    expect(performance.now() - start).toBeGreaterThanOrEqual(24 * pacer.spacingMs - 1);
  });
});
