// What users read for each expected failure: one mapping, never the raw error text.
import { describe, expect, it } from "vitest";
import { userNoticeFor } from "../../src/discord/errorMessages.ts";
import { UserFacingError } from "../../src/errors.ts";
import { MarketError, type MarketErrorKind } from "../../src/market/errors.ts";

const market = (kind: MarketErrorKind, extra: Partial<ConstructorParameters<typeof MarketError>[0]> = {}) =>
  new MarketError({ kind, endpoint: "GET /me/transactions", ...extra });

describe("user notices", () => {
  it.each<[MarketErrorKind, Partial<ConstructorParameters<typeof MarketError>[0]>, RegExp]>([
    ["unauthorized", { status: 401 }, /key was rejected — it may have been revoked.*\/account link/],
    ["forbidden", { status: 403 }, /refused access/],
    ["not_found", { status: 404 }, /could not find/],
    ["rate_limited", { status: 429, retryAfterMs: 4200 }, /try again in 5 s/],
    ["upstream", { status: 503 }, /having trouble right now \(status 503\)/],
    ["timeout", {}, /did not answer in time, even after retrying/],
    ["network", {}, /could not reach the marketplace/],
    ["offers_disabled", { status: 400, code: 4 }, /does not accept offers/],
  ])("GIVEN a %s market error THEN the user reads a clear message", (kind, extra, expected) => {
    const notice = userNoticeFor(market(kind, extra));
    expect(notice?.text).toMatch(expected);
    expect(notice?.outcome).toBe("market_error");
    expect(notice?.code).toBe(`market:${kind}`);
  });

  it("GIVEN a 400 with a service message THEN it is shown sanitised and trimmed", () => {
    const notice = userNoticeFor(
      market("bad_request", {
        status: 400,
        serviceMessage: "Payout   onboarding\nincomplete @everyone `rm -rf` " + "x".repeat(400),
      }),
    );
    expect(notice?.text).toMatch(
      /^The marketplace refused the request: “Payout onboarding incomplete @\u200beveryone rm -rf x+…”$/,
    );
    expect(notice?.text.length).toBeLessThan(360);
  });

  it("GIVEN a write that timed out before it was sent THEN the user is told it did not go through", () => {
    const notice = userNoticeFor(
      new MarketError({
        kind: "timeout",
        endpoint: "POST /listings/{listing_id}/bid",
        mayHaveSucceeded: false,
      }),
    );
    expect(notice?.text).toMatch(/did not answer in time; the request did not go through/);
  });

  it("GIVEN a write that may have gone through THEN the user is told to check before retrying", () => {
    expect(userNoticeFor(market("timeout", { mayHaveSucceeded: true }))?.text).toContain(
      "check before trying again",
    );
  });

  it("GIVEN a UserFacingError THEN its message is shown as is, with a warning tone for the user's own situation", () => {
    expect(userNoticeFor(new UserFacingError("not_linked", "Link first."))).toEqual({
      tone: "warning",
      text: "Link first.",
      outcome: "user_error",
      code: "not_linked",
    });
    expect(userNoticeFor(new UserFacingError("upstream", "Down."))?.tone).toBe("error");
  });

  it("GIVEN any other error THEN there is no notice (the router shows an error id instead)", () => {
    expect(userNoticeFor(new Error("secret internals"))).toBeUndefined();
    expect(userNoticeFor("a string")).toBeUndefined();
  });
});
