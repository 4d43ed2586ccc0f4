// Grouping a listing's rule matches into one alert, and folding alerts about one listing in lists.
import { describe, expect, it } from "vitest";
import { groupInOrder, mergeSameListing, rulesOf, withOtherRules } from "../../../src/outbox/grouping.ts";
import type { ListingAlert, SingleAlert } from "../../../src/outbox/payload.ts";

const listingAlert = (listingId: string, ruleId: number, ruleName: string): ListingAlert => ({
  kind: "listing",
  ruleId: String(ruleId),
  ruleName,
  ruleSummary: "",
  listingId,
  listingType: "buy_now",
  itemName: "Falcon Rifle | Ember Tide (Pristine)",
  priceCents: 2_500,
  stickers: [],
  keychains: [],
});

describe("alert grouping", () => {
  it("GIVEN matches of several listings WHEN grouped THEN each key's items stay together in the order its first item came", () => {
    const groups = groupInOrder(["a1", "b1", "a2", "c1", "b2"], (s) => s[0] ?? "");
    expect(groups).toEqual([["a1", "a2"], ["b1", "b2"], ["c1"]]);
  });

  it("GIVEN 14 other rules WHEN named on an alert THEN ten are kept by name and four counted, and the alert's own rule is never repeated", () => {
    const others = Array.from({ length: 14 }, (_, i) => ({ ruleId: String(i + 2), ruleName: `r${i + 2}` }));
    const a = withOtherRules(listingAlert("9", 1, "first"), [{ ruleId: "1", ruleName: "first" }, ...others]);
    expect(a.otherRules).toHaveLength(10);
    expect(a.otherRulesOmitted).toBe(4);
    expect(rulesOf(a).named[0]).toEqual({ ruleId: "1", ruleName: "first" });
  });

  it("GIVEN alerts written one per rule before grouping WHEN a list folds them THEN one entry per listing names every rule, other alerts untouched", () => {
    const items: SingleAlert[] = [
      listingAlert("7", 1, "a"),
      { kind: "key_revoked" },
      listingAlert("7", 2, "b"),
      listingAlert("8", 3, "c"),
      withOtherRules(listingAlert("7", 4, "d"), [{ ruleId: "5", ruleName: "e" }]),
    ];
    const merged = mergeSameListing(
      items,
      (a) => a,
      (_, a) => a,
    );
    expect(merged.map((a) => a.kind)).toEqual(["listing", "key_revoked", "listing"]);
    const first = merged[0] as ListingAlert;
    expect(rulesOf(first).named.map((r) => r.ruleName)).toEqual(["a", "b", "d", "e"]);
    expect(merged[2]).toBe(items[3]);
  });
});
