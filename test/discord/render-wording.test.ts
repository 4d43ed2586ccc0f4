// Deadlines read as English: Discord's relative timestamps say "in 12 hours", so a deadline after
// "by" or "until" carries a date first; list buttons name the entry they act on.
import { describe, expect, it } from "vitest";
import { deadlineTime } from "../../src/discord/render/format.ts";
import { tradeEmbed, tradesPageMessage } from "../../src/discord/render/trades.ts";
import { buyDoneEmbed } from "../../src/discord/render/trading.ts";
import type { TradeView } from "../../src/trading/views.ts";

const AT = new Date("2026-11-26T10:40:00Z");
const UNIX = Math.floor(AT.getTime() / 1000);

function trade(over: Partial<TradeView> = {}): TradeView {
  return {
    tradeId: "9007199254741500",
    state: "queued",
    listingId: "9007199254741123",
    itemName: "Falcon Rifle | Ember Tide (Pristine)",
    priceCents: 9840,
    buyerId: "42420000000000102",
    sellerId: "42420000000000101",
    buyerName: "bob",
    sellerName: "alice",
    verificationMode: undefined,
    createdAt: undefined,
    acceptedAt: undefined,
    verifiedAt: undefined,
    expiresAt: AT,
    transferDeadlineAt: undefined,
    transferSentAt: undefined,
    tradeProtectionEndsAt: undefined,
    isSettlementPeriod: undefined,
    ...over,
  };
}

/** Every text of an embed, joined. */
const textOf = (e: { description?: string; fields?: { name: string; value: string }[] }): string =>
  [e.description ?? "", ...(e.fields ?? []).map((f) => `${f.name}: ${f.value}`)].join("\n");

/** "by <t:…:R>" or "until <t:…:R>" would render "by in 12 hours". */
const BROKEN = /\b(by|until):? <t:\d+:R>/;

describe("deadline wording", () => {
  it("GIVEN a deadline WHEN it is written for a sentence THEN the date comes first and the span in brackets", () => {
    expect(deadlineTime(AT)).toBe(`<t:${UNIX}:f> (<t:${UNIX}:R>)`);
  });

  it("GIVEN a queued sale WHEN the seller and the buyer see it THEN no deadline reads 'by in …'", () => {
    for (const role of ["seller", "buyer"] as const) {
      const text = textOf(tradeEmbed(trade(), role));
      expect(text).toContain(`by <t:${UNIX}:f> (<t:${UNIX}:R>)`);
      expect(text).not.toMatch(BROKEN);
    }
    const pending = textOf(tradeEmbed(trade({ state: "pending", transferDeadlineAt: AT }), "seller"));
    expect(pending).toContain(`Send the item transfer offer on the platform by <t:${UNIX}:f>`);
    expect(pending).not.toMatch(BROKEN);
  });

  it("GIVEN a purchase with a trade WHEN the receipt is shown THEN the seller 'has until' a date", () => {
    const receipt = buyDoneEmbed({
      bought: true,
      listingId: "9007199254741123",
      priceCents: 9840,
      itemName: "Falcon Rifle | Ember Tide (Pristine)",
      trade: trade(),
    });
    expect(receipt.description).toContain(`The seller has until <t:${UNIX}:f> (<t:${UNIX}:R>) to accept`);
    expect(receipt.description).not.toMatch(BROKEN);
  });

  it("GIVEN a page with two sales waiting WHEN it is rendered THEN each Accept button names its line as '#n'", () => {
    const page = tradesPageMessage(
      { trades: [trade(), trade({ tradeId: "9007199254741501" })], page: 0, total: 2, hasMore: false },
      { platformId: "42420000000000101", roleFilter: "seller" },
      "selling",
      {
        acceptId: (id) => `accept:${id}`,
        cancelId: (id) => `cancel:${id}`,
        acceptAllId: "accept-all",
        openId: "open",
        paging: { previousId: "p", nextId: "n", hasPrevious: false, hasNext: false },
      },
    );
    const labels = page.components.flatMap((r) =>
      r.components.map((c) => ("label" in c ? c.label : undefined)).filter((l) => l !== undefined),
    );
    expect(labels).toEqual(expect.arrayContaining(["Accept #1", "Accept #2", "Accept all (2)"]));
    expect(labels.some((l) => /\d\.$/.test(l ?? ""))).toBe(false);
    expect(page.embeds.map((e) => e.description ?? "").join("\n")).not.toMatch(BROKEN);
  });
});
