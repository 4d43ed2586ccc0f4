// The stated contract against the shapes public clients report from the live service: none of them
// is drift, so the doctor passes and /healthz stays ok on a service that behaves as known.
import { describe, expect, it } from "vitest";
import { inspectBody } from "../../src/market/contract/inspect.ts";
import type { DriftFinding } from "../../src/market/contract/inspect.ts";
import { contractOf } from "../../src/market/contract/rules.ts";
import type { RouteName } from "../../src/market/routes.ts";
import { REPORTED } from "./fixtures/reported.ts";

const serious = (findings: readonly DriftFinding[]) => findings.filter((f) => f.kind !== "unknown");

function inspect(route: RouteName, body: unknown, broad = false) {
  const contract = contractOf(route);
  if (contract === undefined) throw new Error(`no contract for ${route}`);
  return inspectBody(contract, body, { broad });
}

const READS: readonly [RouteName, keyof typeof REPORTED][] = [
  ["searchListings", "listingsPage"],
  ["searchListings", "listingsBareArray"],
  ["getListing", "auction"],
  ["getTransactions", "transactions"],
  ["getMyBuyOrders", "myBuyOrders"],
  ["getBuyOrdersForItem", "buyOrdersForItem"],
  ["getHistorySales", "sales"],
  ["getHistoryGraph", "graph"],
  ["getMyTrades", "myTrades"],
  ["getOffersTimeline", "offers"],
];

describe("the contract against reported live shapes", () => {
  for (const [route, shape] of READS) {
    it(`GIVEN the reported ${shape} shape WHEN inspected for ${route} THEN nothing the bot relies on is missing or changed`, () => {
      expect(serious(inspect(route, REPORTED[shape].body).findings)).toEqual([]);
    });
  }

  it("GIVEN a broad page of reported listings (odd and unreadable ones among them) WHEN inspected THEN no drift, and the usually-present fields were checked", () => {
    const page = REPORTED.listingsPage.body;
    const body = { data: Array.from({ length: 4 }, () => page.data).flat(), cursor: page.cursor };

    const { findings, checked } = inspect("searchListings", body, true);

    expect(serious(findings)).toEqual([]);
    expect(checked.has("data[].item.float_value")).toBe(true);
    expect(checked.has("data[].item.paint_seed")).toBe(true);
  });

  it("GIVEN a one-listing answer with its price as a dollar string WHEN inspected THEN it is a type drift on a money field with a masked example", () => {
    const body = { ...REPORTED.auction.body, price: "15.50" };

    const findings = serious(inspect("getListing", body).findings);

    expect(findings).toEqual([
      {
        kind: "type",
        field: "price",
        expected: "integer cents",
        seen: 'string "99.99"',
        money: ["buy", "bid", "buyOrder", "offer"],
      },
    ]);
  });

  it("GIVEN most listings of a page without the item name WHEN inspected THEN it is missing, and the unknown field of the same type is offered as the likely rename", () => {
    const renamed = (l: (typeof REPORTED.listingsBareArray.body)[number]) => {
      const { market_hash_name, ...item } = l.item;
      return { ...l, item: { ...item, title: market_hash_name } };
    };

    const { findings } = inspect("searchListings", REPORTED.listingsBareArray.body.map(renamed));

    expect(findings).toContainEqual({
      kind: "missing",
      field: "data[].item.market_hash_name",
      expected: "a string",
      seen: "renamed? unknown field(s) of that type: title",
    });
    expect(findings).toContainEqual({
      kind: "unknown",
      field: "data[].item.title",
      seen: 'string "xxxxxx xxxxx…"',
    });
  });
});
