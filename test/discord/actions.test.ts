// Custom-id actions: every name pinned (buttons on delivered DMs and old messages carry them for
// ever), declared in exactly one feature table, each served by exactly one command module, and
// the buttons the renders draw carrying byte-identical ids.
import { describe, expect, it } from "vitest";
import { commandModules } from "../../commands/index.ts";
import { listingAlertOf } from "../../src/watch/listingAlertContent.ts";
import {
  AutoAcceptAlert,
  AutoBuyAlert,
  GuardDigestAlert,
  OutbidAlert,
  TradeAlert,
} from "../../src/outbox/payload.ts";
import { RuleFilters } from "../../src/watch/ruleFilters.ts";
import * as tables from "../../src/discord/actions.ts";
import { createRegistry } from "../../src/discord/registry.ts";
import { renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import type { ActionRow } from "../../src/discord/render/button.ts";
import { listingButtons } from "../../src/discord/render/listing.ts";
import { toListingDetail } from "../../src/trading/listing.ts";
import { listingWith } from "../alerts/fixtures.ts";

/** Every action as it was named before the tables existed; a rename breaks buttons already sent. */
const PINNED = {
  BUY_ACTIONS: { start: "buy", confirm: "buy.confirm", cancel: "buy.cancel" },
  BID_ACTIONS: { open: "alert.bid", form: "bid.set" },
  OFFER_ACTIONS: { open: "offer.open", form: "offer.set", page: "offer.page" },
  WATCHLIST_ACTIONS: { add: "wl.add", remove: "wl.remove", page: "wl.page" },
  LISTING_ACTIONS: { similar: "lst.similar", bids: "lst.bids" },
  SEARCH_ACTIONS: { page: "srch.page", open: "srch.open" },
  STALL_ACTIONS: { page: "stall.page" },
  SELL_ACTIONS: { page: "sell.page" },
  TRADE_ACTIONS: {
    accept: "alert.accept",
    cancel: "alert.cancel",
    acceptAll: "trade.acceptall",
    cancelYes: "trade.cancelyes",
    keep: "trade.keep",
    page: "trade.page",
    open: "trade.open",
  },
  WATCH_ACTIONS: {
    similar: "watch.like",
    similarSave: "watch.like.save",
    similarAdjust: "watch.like.adjust",
    similarForm: "watch.like.form",
    arm: "watch.arm",
    armCancel: "watch.armno",
    disarm: "watch.disarm",
  },
  BUY_ORDER_ACTIONS: {
    create: "bo.create",
    edit: "bo.edit",
    dismiss: "bo.dismiss",
    page: "bo.page",
    pick: "bo.pick",
    editForm: "bo.editform",
    save: "bo.save",
    cancel: "bo.cancel",
  },
  GUARD_ACTIONS: { off: "guard.off" },
  ALERT_ACTIONS: { view: "alert.view" },
  ACCOUNT_ACTIONS: {
    linkForm: "acct.link",
    check: "acct.check",
    deleteConfirm: "acct.del.yes",
    deleteCancel: "acct.del.no",
    transactionsPage: "acct.txpage",
  },
  AUTOMATION_ACTIONS: { stop: "auto.stop", stopConfirmed: "auto.stopyes", refresh: "auto.refresh" },
  PORTFOLIO_ACTIONS: { page: "pf.page" },
};

const declared = Object.values(tables).flatMap((table) => Object.values(table));
const registry = createRegistry(commandModules);
const served = registry.modules.flatMap((m) => [...Object.keys(m.components), ...Object.keys(m.modals)]);

const OWNER = "123456789012345678";
const idsOf = (rows: readonly ActionRow[]) =>
  rows.flatMap((r) => r.components.map((c) => ("custom_id" in c ? c.custom_id : undefined)));

describe("custom-id actions", () => {
  it("GIVEN the feature tables THEN every action keeps the name buttons already sent carry", () => {
    expect({ ...tables }).toEqual(PINNED);
  });

  it("GIVEN the feature tables THEN no name is declared twice", () => {
    expect(new Set(declared).size).toBe(declared.length);
  });

  it("GIVEN the command registry THEN it serves exactly the declared actions, each from one module", () => {
    expect([...served].sort()).toEqual([...declared].sort());
    for (const action of declared) {
      expect(registry.component(action) ?? registry.modal(action), action).toBeDefined();
    }
  });

  it("GIVEN alerts for a user WHEN rendered THEN their buttons carry the ids delivered DMs always had", () => {
    const rule = { id: 7, name: "deals", filters: RuleFilters.parse({ max_price: 10_000 }) };
    const listing = listingAlertOf(listingWith(), rule);
    const L = listing.listingId;
    expect(idsOf(renderAlert(listing, OWNER).components)).toEqual([
      `buy:${L}:${OWNER}`,
      `alert.view:${L}:${OWNER}`,
      `watch.like:${L}:${OWNER}`,
    ]);
    expect(idsOf(renderAlert({ ...listing, listingType: "auction" }, OWNER).components)[0]).toBe(
      `alert.bid:${L}:${OWNER}`,
    );
    const outbid = OutbidAlert.parse({
      kind: "outbid",
      listingId: "55",
      itemName: "x",
      yourMaxCents: 1,
      topBidCents: 2,
    });
    expect(idsOf(renderAlert(outbid, OWNER).components)).toEqual([
      `alert.bid:55:${OWNER}`,
      `alert.view:55:${OWNER}`,
    ]);
    const trade = TradeAlert.parse({ kind: "trade", tradeId: "66", role: "seller", state: "queued" });
    expect(idsOf(renderAlert(trade, OWNER).components)).toEqual([
      `alert.accept:66:${OWNER}`,
      `alert.cancel:66:${OWNER}`,
    ]);
    const autoBuy = AutoBuyAlert.parse({
      kind: "auto_buy",
      mode: "live",
      outcome: "bought",
      ruleId: "9",
      ruleName: "r",
      listingId: "77",
      itemName: "x",
      priceCents: 100,
      buyNumber: 1,
      maxBuys: 2,
      disarmed: false,
    });
    expect(idsOf(renderAlert(autoBuy, OWNER).components)).toEqual([
      `alert.view:77:${OWNER}`,
      `watch.disarm:9:${OWNER}`,
    ]);
    const autoAccept = AutoAcceptAlert.parse({ kind: "auto_accept", outcome: "failed", tradeId: "88" });
    expect(idsOf(renderAlert(autoAccept, OWNER).components)).toEqual([`alert.accept:88:${OWNER}`]);
    const digest = GuardDigestAlert.parse({
      kind: "guard_digest",
      entries: [
        {
          guardId: "3",
          guard: "listing",
          subjectId: "99",
          event: "change",
          limitCents: 5,
          at: "2025-01-01T00:00:00Z",
        },
      ],
      activeGuardIds: ["3"],
    });
    expect(idsOf(renderAlert(digest, OWNER).components)).toEqual([`guard.off:3:${OWNER}`]);
  });

  it("GIVEN a listing view WHEN its buttons are drawn THEN each carries its feature's action", () => {
    const idFor = (action: string, subject: string) => `${action}:${subject}`;
    const buyNow = toListingDetail(listingWith({ max_offer_discount: 500 }));
    expect(idsOf(listingButtons({ ...buyNow, isWatchlisted: false }, idFor))).toEqual([
      `buy:${buyNow.listingId}`,
      `offer.open:${buyNow.listingId}`,
      `wl.add:${buyNow.listingId}`,
      `lst.similar:${buyNow.listingId}`,
      `watch.like:${buyNow.listingId}`,
    ]);
    const auction = toListingDetail(listingWith({ type: "auction" }));
    expect(idsOf(listingButtons({ ...auction, isWatchlisted: true }, idFor))).toEqual([
      `alert.bid:${auction.listingId}`,
      `wl.remove:${auction.listingId}`,
      `lst.similar:${auction.listingId}`,
      `lst.bids:${auction.listingId}`,
      `watch.like:${auction.listingId}`,
    ]);
  });
});
