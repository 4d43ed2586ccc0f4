// What an auto-buy's failed purchase means for the user: kept counted when it may have landed,
// given back when refused, and the key's refusal disarms.
import { describe, expect, it } from "vitest";
import { MarketError } from "../../src/market/errors.ts";
import { outcomeOfFailedPurchase } from "../../src/snipe/purchaseOutcome.ts";

const endpoint = "POST /listings/buy";

describe("a failed auto-buy's outcome", () => {
  it("GIVEN a lost answer (timeout, 5xx) WHEN judged THEN the outcome is unknown and stays counted", () => {
    const o = outcomeOfFailedPurchase(new MarketError({ kind: "timeout", endpoint, mayHaveSucceeded: true }));
    expect(o).toMatchObject({ outcome: "unknown", spent: true, disarm: false, revokeKey: false });
    expect(outcomeOfFailedPurchase(new Error("bug")).outcome).toBe("unknown");
  });

  it("GIVEN a refusal for a sold listing or a changed price WHEN judged THEN it is lost, nothing spent, with the reason", () => {
    const sold = outcomeOfFailedPurchase(
      new MarketError({ kind: "stale_purchase", endpoint, status: 422, code: 6 }),
    );
    const repriced = outcomeOfFailedPurchase(
      new MarketError({ kind: "stale_purchase", endpoint, status: 422, code: 15 }),
    );
    expect(sold).toMatchObject({ outcome: "lost", spent: false });
    expect(sold.detail).toContain("someone was faster");
    expect(repriced.detail).toContain("the price changed");
  });

  it("GIVEN the key refused (401) or forbidden (403) WHEN judged THEN the rule disarms, and only a 401 revokes the key", () => {
    expect(
      outcomeOfFailedPurchase(new MarketError({ kind: "unauthorized", endpoint, status: 401 })),
    ).toMatchObject({
      outcome: "key_refused",
      disarm: true,
      revokeKey: true,
    });
    expect(
      outcomeOfFailedPurchase(new MarketError({ kind: "forbidden", endpoint, status: 403 })),
    ).toMatchObject({
      outcome: "key_refused",
      disarm: true,
      revokeKey: false,
    });
    const other = outcomeOfFailedPurchase(
      new MarketError({ kind: "bad_request", endpoint, status: 400, serviceMessage: "insufficient balance" }),
    );
    expect(other).toMatchObject({ outcome: "failed", spent: false, disarm: false });
    expect(other.detail).toContain("insufficient balance");
  });
});
