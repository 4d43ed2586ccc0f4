// Deal quality on listing alerts: the payload fields from a listing, old payloads still reading, and the embed's text.
import { describe, expect, it } from "vitest";
import { listingAlertOf } from "../../src/watch/listingAlertContent.ts";
import { ListingAlert } from "../../src/outbox/payload.ts";
import { RuleFilters } from "../../src/watch/ruleFilters.ts";
import { renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import { feeModel } from "../../src/market/fees.ts";
import { BASE_LISTING, listingWith } from "../alerts/fixtures.ts";

const RULE = { id: 7, name: "deals", filters: RuleFilters.parse({ max_price: 10_000 }) };

function fieldsOf(alert: ListingAlert): Record<string, string> {
  const embed = renderAlert(alert, "123456789012345678").embeds[0];
  return Object.fromEntries((embed?.fields ?? []).map((f) => [f.name, f.value]));
}

describe("deal quality on listing alerts", () => {
  it("GIVEN a listing with a reference, a buy order, fade, blue gem, rank and priced stickers WHEN alerted THEN the embed shows each", () => {
    const listing = listingWith({
      reference: { ...BASE_LISTING.reference, buy_order: { max_price: 8500, quantity: 1 } },
      item: {
        fade: { percentage: 98.5, rank: 3, seed: 661 },
        blue_gem: { playside_blue: 74.2, backside_blue: 40.1 },
        low_rank: 12,
        stickers: [
          { stickerId: 1, slot: 0, wear: 0.5, reference: { price: 2000 } },
          { stickerId: 2, slot: 1, reference: { price: 500 } },
        ],
      },
    });
    const alert = ListingAlert.parse(JSON.parse(JSON.stringify(listingAlertOf(listing, RULE))));
    expect(alert).toMatchObject({
      netResaleCents: 1300,
      netResalePercent: 15.3,
      exitCents: -170,
      exitBuyOrderCents: 8500,
      sellerFeeBps: 200,
      stickerValueCents: 1500,
    });
    const fields = fieldsOf(alert);
    expect(fields["Profit after the 2% seller fee"]).toBe(
      "Net at reference: +$13.00 (15.3%)\nInstant exit: −$1.70 to a $85.00 buy order",
    );
    expect(fields["Fade"]).toBe("98.5% (rank #3)");
    expect(fields["Blue gem"]).toBe("playside 74.2% · backside 40.1%");
    expect(fields["Float rank"]).toBe("#12 lowest");
    expect(fields["Stickers value"]).toBe("$15.00, 17.6% of price");
  });

  it("GIVEN a 2.5% fee model WHEN alerted THEN the figures and the field name use it", () => {
    const fields = fieldsOf(listingAlertOf(listingWith(), RULE, feeModel(250)));
    expect(fields["Profit after the 2.5% seller fee"]).toBe("Net at reference: +$12.50 (14.7%)");
  });

  it("GIVEN a listing without reference, buy order or special values WHEN alerted THEN no deal field appears", () => {
    const alert = listingAlertOf(
      listingWith({ reference: null, item: { reference: null, stickers: null } }),
      RULE,
    );
    const names = Object.keys(fieldsOf(alert));
    expect(names.filter((n) => /Profit|Fade|Blue gem|Float rank|Stickers value/.test(n))).toEqual([]);
    expect(alert.netResaleCents).toBeUndefined();
    expect(alert.sellerFeeBps).toBeUndefined();
  });

  it("GIVEN a payload queued before deal quality existed WHEN parsed and rendered THEN it still reads", () => {
    const old = {
      kind: "listing",
      ruleId: "7",
      ruleName: "deals",
      ruleSummary: "≤ $100.00",
      listingId: "123",
      listingType: "buy_now",
      itemName: "Falcon Rifle | Ember Tide (Pristine)",
      priceCents: 8500,
    };
    const parsed = ListingAlert.parse(old);
    expect(parsed.exitCents).toBeUndefined();
    expect(fieldsOf(parsed)["Price"]).toBe("$85.00");
  });
});
