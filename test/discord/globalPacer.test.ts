// The bot's global pacer: a burst leaves at once up to the limit less the margin, no one-second
// span, whatever its phase, sees more than that, requests leave in the order they asked, and
// requests without a bot token (interaction callbacks, webhooks) never wait.
import { describe, expect, it } from "vitest";
import { createGlobalPacer } from "../../src/discord/outbound/globalPacer.ts";

const AUTH = { headers: { Authorization: "Bot x" } };

describe("the global pacer", () => {
  it("GIVEN 130 authenticated requests at once WHEN paced at 50 a second with a margin of 2 THEN the first 48 leave at once, they leave in order, and no one-second span sees more than 48", async () => {
    const pacer = createGlobalPacer({ perSecond: 50 });
    const start = performance.now();
    const left: { i: number; at: number }[] = [];
    await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        pacer.slot(AUTH).then(() => left.push({ i, at: performance.now() })),
      ),
    );
    expect(pacer.limit).toBe(48);
    expect(left.map((l) => l.i)).toEqual([...Array(130).keys()]);
    const times = left.map((l) => l.at);
    expect((times[47] as number) - start).toBeLessThan(200);
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
