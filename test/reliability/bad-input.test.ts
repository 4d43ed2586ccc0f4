// Bad input across every command, button and form: each case gets a private answer a person can
// act on (naming the option where there is one) and causes no marketplace call and no database
// change. One bot for the whole table.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BID_ACTIONS,
  BUY_ACTIONS,
  LISTING_ACTIONS,
  OFFER_ACTIONS,
  SEARCH_ACTIONS,
  STALL_ACTIONS,
  TRADE_ACTIONS,
  WATCHLIST_ACTIONS,
} from "../../src/discord/actions.ts";
import { type DispatchOptions, type InteractionHandle, type SlashOptions } from "../support/discord.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import {
  answer,
  customId,
  dbSnapshot,
  inhumaneParts,
  isEphemeral,
  textOf,
  upstreamTotal,
  visibleMessages,
} from "./support.ts";

const tally = reliabilityTally("bad-input", "Bad input table (item 6)", import.meta.url);

interface World {
  readonly bot: Bot;
  readonly alice: BotUser;
  readonly bob: BotUser;
}

interface BadCase {
  /** Where and what, e.g. "/bid max_price \"1e999\"". */
  readonly name: string;
  readonly send: (w: World) => InteractionHandle;
  /** What the answer must say (the option's name, the reason). */
  readonly says: RegExp;
}

// ---- how cases reach the bot ------------------------------------------------------------------

const S = 3;
const I = 4;
const N = 10;

/** /command as alice with named options (the double checks types and choices, like Discord). */
const slash =
  (path: string, options: SlashOptions = {}, opts: DispatchOptions = {}) =>
  (w: World) =>
    w.bot.double.slash(w.alice, path, options, opts);

/** /command with raw API options: a client out of date with the definition (bypasses choices). */
const rawSlash =
  (path: string, leaf: readonly { name: string; type: number; value: unknown }[]) => (w: World) => {
    const [top = "", ...subs] = path.split(" ");
    let options: Record<string, unknown>[] = leaf.map((o) => ({ ...o }));
    for (const sub of subs.reverse()) options = [{ name: sub, type: 1, options }];
    return w.bot.double.slash(w.alice, top, options);
  };

interface PressOpts {
  readonly by?: "alice" | "bob";
  /** Expiry of the id; default an hour from now. */
  readonly expiresAt?: number;
}

const at = (w: World, who: "alice" | "bob" = "alice") => (who === "alice" ? w.alice : w.bob);
const soon = () => Date.now() + 60 * 60_000;
const past = () => Date.now() - 60_000;

/** Presses a button of alice's (sent earlier in #general), as alice or as bob. */
const press =
  (action: string, subject: string, o: PressOpts = {}) =>
  (w: World) =>
    w.bot.double.button(at(w, o.by), customId(action, subject, w.alice, o.expiresAt ?? soon()));

/** Picks values from a menu of alice's. */
const pick = (action: string, values: readonly string[]) => (w: World) =>
  w.bot.double.select(w.alice, customId(action, "", w.alice, soon()), values);

/** Submits a form of alice's with these fields. */
const submit =
  (action: string, subject: string, fields: Record<string, string>, o: PressOpts = {}) =>
  (w: World) =>
    w.bot.double.modalSubmit(at(w, o.by), customId(action, subject, w.alice, o.expiresAt ?? soon()), fields);

/** A button whose custom id is whatever text is given (`{alice}` becomes her id). */
const pressText = (text: string) => (w: World) =>
  w.bot.double.button(w.alice, text.replace("{alice}", w.alice.id));

const option = (name: string) => new RegExp(`\`${name}\``);
const both = (a: RegExp, b: RegExp) => new RegExp(`(?=[\\s\\S]*${a.source})(?=[\\s\\S]*${b.source})`);

// ---- values --------------------------------------------------------------------------------

const ID = "123456789";
const BAD_IDS: readonly [string, string][] = [
  ["12a", "letters"],
  ["-1", "negative"],
  ["", "empty"],
  ["1".repeat(30), "30 digits"],
  ["١٢٣", "arabic digits"],
  ["'; DROP TABLE users;--", "SQL injection"],
  ["🔥🔥", "emoji"],
];
const BAD_PRICES: readonly string[] = [
  "abc",
  "-1",
  "1e999",
  "0x10",
  "12.345",
  "NaN",
  "∞",
  "$",
  "1,2,3",
  "@everyone",
];
const TWO_HUNDRED_SEEDS = Array.from({ length: 200 }, (_, i) => i + 1).join(",");
const LONG_500 = "x".repeat(500);
const RULE_NAME_200 = "r".repeat(200);
const ITEM = "Test Rifle | Plain (Field Worn)";
const NOT_AN_ID = /ids are numbers like 123456789/;

const CASES: readonly BadCase[] = [
  // /buy
  ...BAD_IDS.map(([v, what]) => ({
    name: `/buy listing ${what} ${JSON.stringify(v)}`,
    send: slash("buy", { listing: v }),
    says: both(option("listing"), NOT_AN_ID),
  })),
  // /bid
  {
    name: '/bid listing "12a"',
    send: slash("bid", { listing: "12a", max_price: "10" }),
    says: option("listing"),
  },
  ...BAD_PRICES.map((v) => ({
    name: `/bid max_price ${JSON.stringify(v)}`,
    send: slash("bid", { listing: ID, max_price: v }),
    says: option("max_price"),
  })),
  {
    name: '/bid max_price "0"',
    send: slash("bid", { listing: ID, max_price: "0" }),
    says: /more than \$0\.00/,
  },
  // /offer
  {
    name: "/offer make price ${process.env}",
    send: slash("offer make", { listing: ID, price: "${process.env}" }),
    says: option("price"),
  },
  {
    name: '/offer counter offer "-1"',
    send: slash("offer counter", { offer: "-1", price: "5" }),
    says: option("offer"),
  },
  {
    name: "/offer list page 0",
    send: slash("offer list", { page: 0 }),
    says: both(option("page"), /from 1 to 1000/),
  },
  // /sell
  {
    name: "/sell list asset ../../etc/passwd",
    send: slash("sell list", { asset: "../../etc/passwd", price: "5" }),
    says: option("asset"),
  },
  {
    name: '/sell list price "12.345"',
    send: slash("sell list", { asset: ID, price: "12.345" }),
    says: /2 decimals/,
  },
  {
    name: "/sell list description of 500 characters",
    send: slash("sell list", { asset: ID, price: "5", description: LONG_500 }),
    says: both(option("description"), /at most 180/),
  },
  {
    name: '/sell list max_offer_discount "150"',
    send: slash("sell list", { asset: ID, price: "5", max_offer_discount: "150" }),
    says: both(option("max_offer_discount"), /between 0 and 100/),
  },
  {
    name: '/sell list type "gift" (an old client)',
    send: rawSlash("sell list", [
      { name: "asset", type: S, value: ID },
      { name: "price", type: S, value: "5" },
      { name: "type", type: S, value: "gift" },
    ]),
    says: option("type"),
  },
  {
    name: "/sell list auction with a different reserve_price",
    send: slash("sell list", { asset: ID, price: "5", type: "auction", reserve_price: "6" }),
    says: option("reserve_price"),
  },
  {
    name: '/sell reprice price "-1"',
    send: slash("sell reprice", { listing: ID, price: "-1" }),
    says: /not be negative/,
  },
  {
    name: '/sell delist listings "1,abc"',
    send: slash("sell delist", { listings: "1,abc" }),
    says: /"abc" is not an id/,
  },
  {
    name: "/sell delist 200 listing ids",
    send: slash("sell delist", {
      listings: Array.from({ length: 200 }, (_, i) => String(1000 + i)).join(","),
    }),
    says: option("listings"),
  },
  // /buyorder
  {
    name: "/buyorder create item of spaces",
    send: slash("buyorder create", { item: "   ", max_price: "5", quantity: 1 }),
    says: both(option("item"), /must not be empty/),
  },
  {
    name: "/buyorder create item of 500 characters",
    send: slash("buyorder create", { item: LONG_500, max_price: "5", quantity: 1 }),
    says: both(option("item"), /at most 200/),
  },
  {
    name: "/buyorder create quantity 0",
    send: slash("buyorder create", { item: ITEM, max_price: "5", quantity: 0 }),
    says: option("quantity"),
  },
  ...(
    [
      ["2", "between 0 and 1"],
      ["-0.1", "between 0 and 1"],
      ["abc", "float between 0 and 1"],
    ] as const
  ).map(([v, why]) => ({
    name: `/buyorder create min_float ${JSON.stringify(v)}`,
    send: slash("buyorder create", { item: ITEM, max_price: "5", quantity: 1, min_float: v }),
    says: both(option("min_float"), new RegExp(why)),
  })),
  {
    name: "/buyorder create min_float above max_float",
    send: slash("buyorder create", {
      item: ITEM,
      max_price: "5",
      quantity: 1,
      min_float: "0.5",
      max_float: "0.1",
    }),
    says: /min_float \(0\.5\) is above max_float \(0\.1\)/,
  },
  {
    name: '/buyorder create paint_seeds "661,,x"',
    send: slash("buyorder create", { item: ITEM, max_price: "5", quantity: 1, paint_seeds: "661,,x" }),
    says: both(option("paint_seeds"), /"x" is not a pattern seed/),
  },
  {
    name: '/buyorder create paint_seeds "99999999"',
    send: slash("buyorder create", { item: ITEM, max_price: "5", quantity: 1, paint_seeds: "99999999" }),
    says: /from 0 to 100000/,
  },
  {
    name: "/buyorder create 200 paint seeds",
    send: slash("buyorder create", {
      item: ITEM,
      max_price: "5",
      quantity: 1,
      paint_seeds: TWO_HUNDRED_SEEDS,
    }),
    says: /at most 100 seeds/,
  },
  {
    name: '/buyorder create stickers "abc|1"',
    send: slash("buyorder create", { item: ITEM, max_price: "5", quantity: 1, stickers: "abc|1" }),
    says: option("stickers"),
  },
  {
    name: '/buyorder edit order "12a"',
    send: slash("buyorder edit", { order: "12a" }),
    says: option("order"),
  },
  {
    name: '/buyorder edit clear "bogus"',
    send: slash("buyorder edit", { order: ID, clear: "bogus" }),
    says: both(option("clear"), /"bogus" is not a constraint/),
  },
  {
    name: '/buyorder cancel order "-1"',
    send: slash("buyorder cancel", { order: "-1" }),
    says: option("order"),
  },
  {
    name: '/buyorder matches listing "abc"',
    send: slash("buyorder matches", { listing: "abc" }),
    says: NOT_AN_ID,
  },
  {
    name: "/buyorder similar item with a right-to-left override",
    send: slash("buyorder similar", { item: "Rifle \u202Eelfir" }),
    says: /control characters/,
  },
  // /search (a public deferral that turns into a private refusal)
  { name: '/search min_price "abc"', send: slash("search", { min_price: "abc" }), says: option("min_price") },
  {
    name: '/search max_price "1e999"',
    send: slash("search", { max_price: "1e999" }),
    says: option("max_price"),
  },
  {
    name: "/search min_price above max_price",
    send: slash("search", { min_price: "50", max_price: "10" }),
    says: /min_price \(\$50\.00\) is above max_price \(\$10\.00\)/,
  },
  { name: '/search min_float "2"', send: slash("search", { min_float: "2" }), says: option("min_float") },
  {
    name: '/search stickers "1|9"',
    send: slash("search", { stickers: "1|9" }),
    says: /slot must be from 0 to 5/,
  },
  { name: '/search stickers "|"', send: slash("search", { stickers: "|" }), says: option("stickers") },
  {
    name: '/search stickers "abc|1"',
    send: slash("search", { stickers: "abc|1" }),
    says: /is not a sticker/,
  },
  { name: '/search seller "١٢٣"', send: slash("search", { seller: "١٢٣" }), says: option("seller") },
  { name: "/search paint_seed -1", send: slash("search", { paint_seed: -1 }), says: option("paint_seed") },
  {
    name: "/search item of zero-width spaces",
    send: slash("search", { item: "\u200b\u200b\u200b" }),
    says: option("item"),
  },
  // /history
  {
    name: "/history item with a line break",
    send: slash("history", { item: "Rifle\nPlain" }),
    says: /control characters/,
  },
  {
    name: "/history paint_index -1",
    send: slash("history", { item: ITEM, paint_index: -1 }),
    says: option("paint_index"),
  },
  // /stall
  {
    name: "/stall user ../../etc/passwd",
    send: slash("stall", { user: "../../etc/passwd" }),
    says: option("user"),
  },
  {
    name: '/stall filter "everything" (an old client)',
    send: rawSlash("stall", [
      { name: "user", type: S, value: ID },
      { name: "filter", type: S, value: "everything" },
    ]),
    says: option("filter"),
  },
  // /listing
  { name: '/listing view id "12a"', send: slash("listing view", { id: "12a" }), says: option("id") },
  { name: '/listing bids id ""', send: slash("listing bids", { id: "" }), says: option("id") },
  {
    name: "/listing similar id of 30 digits",
    send: slash("listing similar", { id: "1".repeat(30) }),
    says: option("id"),
  },
  // /watchlist
  {
    name: '/watchlist add listing "abc"',
    send: slash("watchlist add", { listing: "abc" }),
    says: option("listing"),
  },
  {
    name: '/watchlist remove listing "-1"',
    send: slash("watchlist remove", { listing: "-1" }),
    says: option("listing"),
  },
  // /portfolio
  {
    name: '/portfolio summary period "forever" (an old client)',
    send: rawSlash("portfolio summary", [{ name: "period", type: S, value: "forever" }]),
    says: option("period"),
  },
  {
    name: "/portfolio export item with a line break",
    send: slash("portfolio export", { item: "Rifle\nPlain" }),
    says: option("item"),
  },
  // /trades
  { name: '/trades view trade "12a"', send: slash("trades view", { trade: "12a" }), says: option("trade") },
  { name: '/trades accept trade "-1"', send: slash("trades accept", { trade: "-1" }), says: option("trade") },
  {
    name: "/trades cancel trade <script>",
    send: slash("trades cancel", { trade: "<script>alert(1)</script>" }),
    says: option("trade"),
  },
  {
    name: '/trades list role "admin" (an old client)',
    send: rawSlash("trades list", [{ name: "role", type: S, value: "admin" }]),
    says: option("role"),
  },
  // /watch
  {
    name: "/watch add name of 200 characters",
    send: slash("watch add", { name: RULE_NAME_200, item: ITEM }),
    says: both(option("name"), /at most 50/),
  },
  { name: '/watch add name ""', send: slash("watch add", { name: "", item: ITEM }), says: option("name") },
  {
    name: "/watch add name with a zero-width space",
    send: slash("watch add", { name: "cheap\u200brifles", item: ITEM }),
    says: /invisible or control characters/,
  },
  {
    name: "/watch add min_float 2",
    send: slash("watch add", { name: "f", min_float: 2 }),
    says: option("min_float"),
  },
  {
    name: "/watch add max_float -0.1",
    send: slash("watch add", { name: "f", max_float: -0.1 }),
    says: option("max_float"),
  },
  {
    name: "/watch add min_float above max_float",
    send: slash("watch add", { name: "f", min_float: 0.5, max_float: 0.1 }),
    says: /min_float \(0\.5\) is above max_float \(0\.1\)/,
  },
  {
    name: '/watch filters paint_seeds "661,,x"',
    send: slash("watch filters", { rule: "s", paint_seeds: "661,,x" }),
    says: option("paint_seeds"),
  },
  {
    name: '/watch filters paint_seeds "99999999"',
    send: slash("watch filters", { rule: "s", paint_seeds: "99999999" }),
    says: option("paint_seeds"),
  },
  {
    name: "/watch filters 200 paint seeds",
    send: slash("watch filters", { rule: "s", paint_seeds: TWO_HUNDRED_SEEDS }),
    says: /at most 100 seeds/,
  },
  {
    name: '/watch filters stickers "abc|1"',
    send: slash("watch filters", { rule: "s", stickers: "abc|1" }),
    says: option("stickers"),
  },
  {
    name: '/watch filters stickers "1|9"',
    send: slash("watch filters", { rule: "s", stickers: "1|9" }),
    says: /slot must be/,
  },
  {
    name: '/watch filters stickers "|"',
    send: slash("watch filters", { rule: "s", stickers: "|" }),
    says: option("stickers"),
  },
  {
    name: "/watch add max_price 1e300",
    send: slash("watch add", { name: "p", max_price: 1e300 }),
    says: option("max_price"),
  },
  {
    name: "/watch add named with SQL and no narrowing filter",
    send: slash("watch add", { name: "'; DROP TABLE users;--" }),
    says: /Add at least one filter/,
  },
  {
    name: "/watch edit clear an unknown filter",
    send: slash("watch edit", { rule: "s", clear: "colour" }),
    says: option("clear"),
  },
  {
    name: "/watch edit max_price 1e300",
    send: slash("watch edit", { rule: "s", max_price: 1e300 }),
    says: option("max_price"),
  },
  {
    name: "/watch remove a rule that does not exist",
    send: slash("watch remove", { name: "no such rule" }),
    says: /no such rule|No rule|don't have/i,
  },
  // /account
  {
    name: '/account settings per_purchase_cap "abc"',
    send: slash("account settings", { per_purchase_cap: "abc" }),
    says: option("per_purchase_cap"),
  },
  {
    name: '/account settings daily_cap "-5"',
    send: slash("account settings", { daily_cap: "-5" }),
    says: option("daily_cap"),
  },
  {
    name: '/account settings quiet_hours "25:00-07:00"',
    send: slash("account settings", { quiet_hours: "25:00-07:00" }),
    says: option("quiet_hours"),
  },
  {
    name: '/account settings timezone "Mars/Olympus"',
    send: slash("account settings", { timezone: "Mars/Olympus" }),
    says: option("timezone"),
  },
  {
    name: '/account settings destination "everywhere" (an old client)',
    send: rawSlash("account settings", [{ name: "destination", type: S, value: "everywhere" }]),
    says: option("destination"),
  },
  {
    name: "/account transactions page 0",
    send: slash("account transactions", { page: 0 }),
    says: option("page"),
  },
  {
    name: '/account transactions type "bogus" (an old client)',
    send: rawSlash("account transactions", [{ name: "type", type: S, value: "bogus" }]),
    says: option("type"),
  },
  {
    name: "/offer list page 2^53 (an old client)",
    send: rawSlash("offer list", [{ name: "page", type: I, value: 2 ** 53 }]),
    says: option("page"),
  },
  {
    name: "/watch add min_discount 1000 (an old client)",
    send: rawSlash("watch add", [
      { name: "name", type: S, value: "d" },
      { name: "min_discount", type: N, value: 1000 },
    ]),
    says: option("min_discount"),
  },
  // buttons with damaged subjects (made with the real codec, pressed by their owner)
  { name: "Buy button with subject abc", send: press(BUY_ACTIONS.start, "abc"), says: NOT_AN_ID },
  { name: "Confirm purchase with subject abc", send: press("buy.confirm", "abc"), says: /damaged/ },
  { name: "Confirm purchase without a price", send: press("buy.confirm", "123"), says: /damaged/ },
  { name: "Bid button with subject x", send: press(BID_ACTIONS.open, "x"), says: NOT_AN_ID },
  { name: "Make offer button without a listing", send: press(OFFER_ACTIONS.open, ""), says: NOT_AN_ID },
  { name: "Watch button with subject abc", send: press(WATCHLIST_ACTIONS.add, "abc"), says: NOT_AN_ID },
  { name: "Unwatch button with subject -1", send: press(WATCHLIST_ACTIONS.remove, "-1"), says: NOT_AN_ID },
  {
    name: "watchlist page with a made-up pager",
    send: press(WATCHLIST_ACTIONS.page, "nope"),
    says: /no longer available/,
  },
  {
    name: "search page with a made-up pager",
    send: press(SEARCH_ACTIONS.page, "nope"),
    says: /no longer available/,
  },
  {
    name: "stall page with a made-up pager",
    send: press(STALL_ACTIONS.page, "zzzzzzzz.1"),
    says: /no longer available/,
  },
  {
    name: "my listings page with a made-up pager",
    send: press("sell.page", "x"),
    says: /no longer available/,
  },
  { name: "Similar button with subject abc", send: press(LISTING_ACTIONS.similar, "abc"), says: NOT_AN_ID },
  { name: "Bids button without a listing", send: press(LISTING_ACTIONS.bids, ""), says: NOT_AN_ID },
  { name: "listing menu value abc", send: pick(SEARCH_ACTIONS.open, ["abc"]), says: NOT_AN_ID },
  {
    name: "Accept trade button with subject abc",
    send: press(TRADE_ACTIONS.accept, "abc"),
    says: /trade ids are numbers/,
  },
  {
    name: "Cancel trade button with subject abc",
    send: press(TRADE_ACTIONS.cancel, "abc"),
    says: /trade ids are numbers/,
  },
  {
    name: "Cancel trade (confirm) with subject abc",
    send: press("trade.cancelyes", "abc"),
    says: /trade ids are numbers/,
  },
  { name: "trades page with subject x.y", send: press("trade.page", "x.y"), says: /damaged/ },
  { name: "trade menu value 12a", send: pick("trade.open", ["12a"]), says: /trade ids are numbers/ },
  { name: "transactions page with subject zz", send: press("acct.txpage", "zz"), says: /damaged/ },
  { name: "transactions page with type bogus", send: press("acct.txpage", "5.bogus"), says: option("type") },
  { name: "buy orders page with subject x", send: press("bo.page", "x"), says: /damaged/ },
  { name: "offers page with subject 99999", send: press("offer.page", "99999"), says: /damaged/ },
  { name: "alert View button with subject abc", send: press("alert.view", "abc"), says: option("listing") },
  // forms with bad fields
  ...["abc", "1e999", "-1"].map((v) => ({
    name: `bid form max_price ${JSON.stringify(v)}`,
    send: submit("bid.set", ID, { max_price: v }),
    says: option("max_price"),
  })),
  { name: "bid form for listing abc", send: submit("bid.set", "abc", { max_price: "5" }), says: NOT_AN_ID },
  { name: "bid form without its field", send: submit("bid.set", ID, {}), says: /max_price/ },
  { name: 'offer form price "-1"', send: submit("offer.set", ID, { price: "-1" }), says: option("price") },
  { name: 'link form key "short"', send: submit("acct.link", "", { key: "short" }), says: /too short/ },
  {
    name: "link form key of 300 characters",
    send: submit("acct.link", "", { key: "k".repeat(300) }),
    says: /too long/,
  },
  // another user's buttons and forms (bob presses alice's)
  ...(
    [
      [BUY_ACTIONS.start, ID],
      ["buy.confirm", `${ID}.1000`],
      [TRADE_ACTIONS.accept, ID],
      [TRADE_ACTIONS.cancel, ID],
      ["trade.page", "0.any.any"],
      [SEARCH_ACTIONS.page, "abcdefgh.1"],
      ["offer.page", "1"],
    ] as const
  ).map(([action, subject]) => ({
    name: `bob presses alice's ${action} button`,
    send: press(action, subject, { by: "bob" }),
    says: /This isn't yours/,
  })),
  {
    name: "bob submits alice's bid form",
    send: submit("bid.set", ID, { max_price: "5" }, { by: "bob" }),
    says: /This isn't yours/,
  },
  // expired ids (their owner presses after the expiry)
  ...(
    [
      ["buy.confirm", `${ID}.1000`],
      ["trade.cancelyes", ID],
      [WATCHLIST_ACTIONS.page, "abcdefgh.0"],
    ] as const
  ).map(([action, subject]) => ({
    name: `an expired ${action} button`,
    send: press(action, subject, { expiresAt: past() }),
    says: /has expired; run the command again/,
  })),
  {
    name: "an expired offer form",
    send: submit("offer.set", ID, { price: "5" }, { expiresAt: past() }),
    says: /expired/,
  },
  // malformed custom ids
  {
    name: 'a button with custom id "hello"',
    send: pressText("hello"),
    says: /damaged or from an old version/,
  },
  {
    name: "a button of an unknown action",
    send: pressText("nope.nope:1:{alice}"),
    says: /no longer supported/,
  },
  { name: "a truncated Confirm button", send: pressText("buy.confirm:123.45:2841"), says: /damaged/ },
  { name: 'a button with custom id "::::"', send: pressText("::::"), says: /damaged/ },
  { name: "a button with unicode in its custom id", send: pressText("bü¥:ä:ö"), says: /damaged/ },
  {
    name: "a form with a malformed custom id",
    send: (w) => w.bot.double.modalSubmit(w.alice, "garbage form id", { price: "5" }),
    says: /form is damaged/,
  },
];

// ---- the table --------------------------------------------------------------------------------

let world: World;

beforeAll(async () => {
  const bot = await startQuietBot(["alice", "bob"]);
  world = { bot, alice: bot.users.alice, bob: bot.users.bob };
});

afterAll(async () => {
  await world?.bot.stop();
});

describe("bad input", () => {
  it("GIVEN the table THEN it has at least 60 cases and reaches every command", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    // Commands with options to get wrong (/help and /alerts take none; the alert View button is below).
    const hasOptions = (o: { type: number; options?: readonly unknown[] }): boolean =>
      o.type === 1 || o.type === 2
        ? (o.options ?? []).some((x) => hasOptions(x as { type: number; options?: readonly unknown[] }))
        : true;
    const commands = new Set(
      world.bot.app.registry.definitions.filter((d) => (d.options ?? []).some(hasOptions)).map((d) => d.name),
    );
    const reached = new Set(CASES.map((c) => /^\/(\w+)/.exec(c.name)?.[1]).filter((n) => n !== undefined));
    expect([...commands].filter((c) => !reached.has(c))).toEqual([]);
  });

  it.each(CASES)(
    "GIVEN $name THEN a private, human answer says why, and nothing reaches the marketplace or the database",
    async (c) => {
      const { bot } = world;
      const upstream = upstreamTotal(bot);
      const db = await dbSnapshot(bot);

      const h = c.send(world);
      const reply = await answer(h);
      const text = textOf(reply);

      expect(isEphemeral(reply), `answer flags ${reply.flags}: ${text}`).toBe(true);
      expect(visibleMessages(bot, h).every(isEphemeral), "no public message stays behind").toBe(true);
      expect(text).toMatch(c.says);
      expect(inhumaneParts(text)).toEqual([]);
      expect(h.record.responses).toHaveLength(1);
      expect(h.record.rejectedCallbacks).toEqual([]);
      expect(upstreamTotal(bot)).toBe(upstream);
      expect(await dbSnapshot(bot)).toEqual(db);
      tally.add("cases tried");
    },
  );
});
