// Listing fates as plain data: gone detection between two first pages, which sighting wins, the weekly summary.
import { describe, expect, it } from "vitest";
import {
  fateOfListing,
  GONE,
  goneFromFeed,
  improves,
  missingByPosition,
  isoWeek,
  median,
  merge,
  summariseMissedDeals,
  type AlertedDeal,
  type FateObservation,
} from "../../../src/feed/listingFates.ts";
import { feeModel } from "../../../src/market/fees.ts";
import type { Listing } from "../../../src/market/schemas.ts";
import { listingWith } from "../fixtures.ts";

const T0 = Date.parse("2026-11-20T12:00:00.000Z");

/** Listing number n, created n seconds after T0 (a higher number is newer). */
const L = (n: number, createdAt: string | null = new Date(T0 + n * 1000).toISOString()): Listing =>
  listingWith({ id: String(1000 + n), created_at: createdAt });
/** Newest first, as the feed reads them: page(10, 1) is listings 10, 9, ..., 1. */
const page = (from: number, to: number, except: readonly number[] = []): Listing[] => {
  const out: Listing[] = [];
  for (let n = from; n >= to; n--) if (!except.includes(n)) out.push(L(n));
  return out;
};
const ids = (...ns: number[]) => ns.map((n) => String(1000 + n));

describe("gone detection between two first pages", () => {
  it("GIVEN new listings pushing old ones off the page WHEN nothing sold THEN nothing is gone", () => {
    const previous = page(10, 1);
    const current = page(15, 6); // five new on top, 5..1 pushed off

    expect(goneFromFeed(previous, { listings: current, complete: false })).toEqual([]);
  });

  it("GIVEN listings missing from inside the window THEN exactly those are gone AND one pushed off is not", () => {
    const previous = page(10, 1);
    // Two new listings on top; 8 and 4 sold; 1 was pushed below the window (its fate is unknown).
    const current = page(12, 2, [8, 4]);

    expect(goneFromFeed(previous, { listings: current, complete: false })).toEqual(ids(8, 4));
  });

  it("GIVEN a missing listing created at the same instant as the window's oldest THEN it is not called gone", () => {
    const boundary = new Date(T0 + 5_000).toISOString();
    const twin = listingWith({ id: "2005", created_at: boundary });
    const previous = [...page(10, 6), twin, L(5)];
    const current = [...page(12, 6), L(5)]; // the twin may sort after 5 on the service's side

    expect(goneFromFeed(previous, { listings: current, complete: false })).toEqual([]);
  });

  it("GIVEN a complete read (no next page) WHEN a listing is missing, the oldest included THEN it is gone", () => {
    const previous = page(3, 1);

    expect(goneFromFeed(previous, { listings: page(3, 2), complete: true })).toEqual(ids(1));
    expect(goneFromFeed(previous, { listings: page(3, 2), complete: false })).toEqual([]);
  });

  it("GIVEN an empty current page, or listings without created_at THEN nothing is called gone", () => {
    expect(goneFromFeed(page(3, 1), { listings: [], complete: true })).toEqual([]);
    const undated = [L(9, null), ...page(8, 1)];
    expect(goneFromFeed(undated, { listings: page(8, 1), complete: false })).toEqual([]);
    // The window's oldest has no created_at: the window cannot vouch for anything.
    expect(
      goneFromFeed(page(10, 1), { listings: [...page(10, 3, [7]), L(2, null)], complete: false }),
    ).toEqual([]);
  });

  it("GIVEN a current page out of order THEN nothing is called gone", () => {
    const shuffled = [L(1), ...page(10, 2, [6])];
    expect(goneFromFeed(page(10, 1), { listings: shuffled, complete: false })).toEqual([]);
  });
});

describe("listings missing by their places on the first page (the trade poller's hint)", () => {
  it("GIVEN new listings pushing old ones off the page WHEN nothing sold THEN nothing is missing", () => {
    expect(missingByPosition(page(10, 1), page(15, 6))).toEqual([]);
  });

  it("GIVEN listings missing from inside the page THEN exactly those are missing AND one pushed off is not", () => {
    expect(missingByPosition(page(10, 1), page(12, 2, [8, 4]))).toEqual(ids(8, 4));
  });

  it("GIVEN listings created at one instant at the bottom of the page WHEN one of them sells THEN it is missing, though goneFromFeed cannot vouch for it", () => {
    const at = new Date(T0 + 5_000).toISOString();
    const tie = (n: number) => listingWith({ id: String(3000 + n), created_at: at });
    const previous = [L(9), tie(3), tie(2), tie(1)];
    // One new listing on top; tie 2 sold, so tie 1 is still on the page.
    const current = [L(10), L(9), tie(3), tie(1)];

    expect(missingByPosition(previous, current)).toEqual(["3002"]);
    expect(goneFromFeed(previous, { listings: current, complete: false })).toEqual([]);
    // Nothing sold: the new listing pushes the last tie off, and that is not missing.
    expect(missingByPosition(previous, [L(10), L(9), tie(3), tie(2)])).toEqual([]);
  });

  it("GIVEN an empty current page THEN nothing is missing", () => {
    expect(missingByPosition(page(3, 1), [])).toEqual([]);
  });
});

describe("a single listing read", () => {
  const readAt = new Date(T0 + 60_000);

  it("GIVEN a listed listing THEN no fate", () => {
    expect(fateOfListing(L(1), readAt)).toBeUndefined();
  });

  it("GIVEN a sold listing with sold_at THEN its state at the sale's own time", () => {
    const soldAt = new Date(T0 + 4_000).toISOString();
    expect(fateOfListing(listingWith({ id: "7", state: "sold", sold_at: soldAt }), readAt)).toEqual({
      listingId: "7",
      state: "sold",
      at: new Date(soldAt),
      exactTime: true,
    });
  });

  it("GIVEN a delisted listing (no sold_at) or an odd state THEN the read time, and odd states become gone", () => {
    expect(fateOfListing(listingWith({ id: "7", state: "Delisted" }), readAt)).toEqual({
      listingId: "7",
      state: "delisted",
      at: readAt,
      exactTime: false,
    });
    expect(fateOfListing(listingWith({ id: "7", state: "<@1> sold!" }), readAt)?.state).toBe(GONE);
  });
});

describe("which sighting wins", () => {
  const guess: FateObservation = { listingId: "1", state: GONE, at: new Date(T0 + 10_000), exactTime: false };
  const sold: FateObservation = { listingId: "1", state: "sold", at: new Date(T0 + 4_000), exactTime: true };
  const delistedLate: FateObservation = {
    listingId: "1",
    state: "delisted",
    at: new Date(T0 + 90_000),
    exactTime: false,
  };

  it("GIVEN nothing yet THEN any sighting is taken", () => {
    expect(improves(undefined, guess)).toBe(true);
    expect(merge(undefined, guess)).toEqual(guess);
  });

  it("GIVEN a feed guess THEN an exact state replaces it, with the sale's time when it has one", () => {
    expect(improves(guess, sold)).toBe(true);
    expect(merge(guess, sold)).toEqual(sold);
  });

  it("GIVEN a feed guess WHEN a later read says delisted without a time THEN the state changes and the earlier time stays", () => {
    expect(improves(guess, delistedLate)).toBe(true);
    expect(merge(guess, delistedLate)).toEqual({ ...delistedLate, at: guess.at });
  });

  it("GIVEN an exact state THEN nothing replaces it, nor does a second guess replace a guess", () => {
    expect(improves(sold, delistedLate)).toBe(false);
    expect(improves(sold, guess)).toBe(false);
    expect(improves(guess, { ...guess, at: new Date(T0) })).toBe(false);
  });
});

describe("the weekly summary", () => {
  const fees = feeModel(200); // 2%
  const at = (s: number) => new Date(T0 + s * 1000);
  const deal = (over: Partial<AlertedDeal>): AlertedDeal => ({
    listingId: "1",
    alertedAt: at(0),
    priceCents: 10_000,
    referenceCents: 12_000,
    goneAt: undefined,
    goneState: undefined,
    bought: false,
    ...over,
  });

  it("GIVEN deals gone, bought, open, without reference or at a loss THEN only positive nets of missed deals with a reference count", () => {
    const s = summariseMissedDeals(
      [
        deal({ listingId: "1", goneAt: at(4), goneState: "sold" }), // 12000 - 240 - 10000 = 1760
        deal({ listingId: "2", goneAt: at(9), goneState: GONE, priceCents: 5_000, referenceCents: 5_050 }), // 4949 - 5000 < 0
        deal({ listingId: "3", goneAt: at(30), goneState: "sold", referenceCents: undefined }),
        deal({ listingId: "4", goneAt: at(2), goneState: "sold", bought: true }),
        deal({ listingId: "5" }), // still listed
      ],
      fees,
    );

    expect(s).toEqual({ alerted: 5, missed: 3, medianGoneAfterMs: 9_000, netCents: 1_760 });
  });

  it("GIVEN nothing missed THEN no median and no net", () => {
    expect(summariseMissedDeals([deal({})], fees)).toEqual({
      alerted: 1,
      missed: 0,
      medianGoneAfterMs: undefined,
      netCents: 0,
    });
  });

  it("GIVEN an even count THEN the median is the mean of the middle two", () => {
    expect(median([4, 1, 10, 8])).toBe(6);
    expect(median([])).toBeUndefined();
  });

  it("GIVEN dates around new year THEN ISO weeks follow the Thursday rule", () => {
    expect(isoWeek(new Date("2026-11-25T18:00:00Z"))).toBe("2026-W48");
    expect(isoWeek(new Date("2021-01-03T12:00:00Z"))).toBe("2020-W53");
    expect(isoWeek(new Date("2024-12-30T00:00:00Z"))).toBe("2025-W01");
    expect(isoWeek(new Date("2026-11-29T23:59:59Z"))).toBe("2026-W48"); // Sunday ends the week
    expect(isoWeek(new Date("2026-11-30T00:00:00Z"))).toBe("2026-W49");
  });
});
