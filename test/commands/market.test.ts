// /search, /listing, /history, /stall and /watchlist end to end: the real app and discord.js client
// against the Discord double, the sandbox marketplace and a fresh database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BID_ACTIONS,
  BUY_ACTIONS,
  LISTING_ACTIONS,
  OFFER_ACTIONS,
  WATCHLIST_ACTIONS,
  WATCH_ACTIONS,
} from "../../src/discord/actions.ts";
import type { ListingJson } from "../../src/sandbox/render/index.ts";
import { isEphemeral, textOf, type StoredMessage } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";
import {
  actionOf,
  button,
  buttonLabels,
  componentsOf,
  listedIds,
  marketGet,
  openMenu,
  QUIET_ENV,
  routeHits,
  sandboxTotal,
} from "./market-helpers.ts";

let bot: Bot;

beforeAll(async () => {
  bot = await startBot({ env: QUIET_ENV });
  await bot.link(bot.users.alice);
});

afterAll(async () => {
  await bot?.stop();
});

/** An invented item name nobody else lists, so a search for it sees exactly what the test made. */
let names = 0;
function uniqueName(): string {
  names += 1;
  return `Test Carbine | Proof ${names}x${Date.now().toString(36)} (Field Worn)`;
}

async function search(options: Record<string, string | number>): Promise<StoredMessage> {
  return bot.double.slash(bot.users.alice, "search", options).finalMessage();
}

/** Presses a button and resolves with the message as the presser then sees it. */
async function press(message: StoredMessage, label: string, user = bot.users.alice): Promise<StoredMessage> {
  return bot.double.button(user, button(message, label).custom_id, message).finalMessage();
}

describe("/search", () => {
  it("GIVEN listings in and out of a price range WHEN searching with price, type and sort filters THEN exactly the matching listings show, cheapest first, in a public message", async () => {
    const name = uniqueName();
    const make = (price: number, type: "buy_now" | "auction" = "buy_now") =>
      bot.sandbox.control.createListing({ market_hash_name: name, price, type, reference_price: 2_000 });
    const inRange = [make(1_250), make(1_000), make(1_999)];
    make(999);
    make(2_001);
    make(1_500, "auction");

    const results = await search({
      item: name,
      min_price: "10.00",
      max_price: "$19.99",
      type: "buy_now",
      sort: "lowest_price",
    });

    expect(isEphemeral(results)).toBe(false);
    const expected = [...inRange].sort((a, b) => a.price - b.price).map((l) => l.id);
    expect(listedIds(results)).toEqual(expected);
    const text = textOf(results);
    expect(text).toContain("$10.00–$19.99");
    expect(text).toMatch(/\$10\.00\*\* · Test Carbine \| Proof .* · 50\.0% below ref/);
    expect(text).toContain("sorted by lowest price");
    // One page only: no paging buttons, just the menu.
    expect(buttonLabels(results)).toEqual([]);
  });

  it("GIVEN 23 matching listings WHEN Next is pressed until it is disabled THEN every listing shows exactly once, as many as the marketplace holds", async () => {
    const name = uniqueName();
    const made = bot.sandbox.control.createListings(23, { market_hash_name: name, type: "buy_now" });
    const held = await marketGet<{ data: ListingJson[] }>(
      bot,
      `/listings?market_hash_name=${encodeURIComponent(name)}&limit=50`,
    );

    let page = await search({ item: name, sort: "lowest_price" });
    const seen: string[] = [...listedIds(page)];
    const pages = [listedIds(page)];
    expect(button(page, "Previous").disabled).toBe(true);
    for (let guard = 0; button(page, "Next").disabled !== true; guard += 1) {
      expect(guard).toBeLessThan(5);
      page = await press(page, "Next");
      pages.push(listedIds(page));
      seen.push(...listedIds(page));
    }

    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(held.data.length);
    expect(new Set(seen)).toEqual(new Set(made.map((l) => l.id)));
    expect(textOf(page)).toContain("Page 3 · 21–23");

    const back = await press(page, "Previous");
    expect(listedIds(back)).toEqual(pages[1]);
    expect(button(back, "Next").disabled).toBe(false);
  });

  it("GIVEN alice's results WHEN bob presses Next THEN bob is told it isn't his, the message stays and the marketplace is not asked", async () => {
    const name = uniqueName();
    bot.sandbox.control.createListings(12, { market_hash_name: name });
    const results = await search({ item: name });
    const before = { ids: listedIds(results), editedAt: results.editedAt, calls: sandboxTotal(bot) };

    const refusal = await bot.double
      .button(bot.users.bob, button(results, "Next").custom_id, results)
      .finalMessage();

    expect(isEphemeral(refusal)).toBe(true);
    expect(textOf(refusal)).toContain("This isn't yours");
    const now = bot.double.message(results.id);
    expect(now?.editedAt).toBe(before.editedAt);
    expect(now && listedIds(now)).toEqual(before.ids);
    expect(sandboxTotal(bot)).toBe(before.calls);
  });

  it("GIVEN search results WHEN anyone picks a listing in the menu THEN that listing opens privately for them", async () => {
    const name = uniqueName();
    const listing = bot.sandbox.control.createListing({
      market_hash_name: name,
      price: 4_321,
      float_value: 0.123456,
    });
    const results = await search({ item: name });

    const opened = await bot.double
      .select(bot.users.bob, openMenu(results).custom_id, [listing.id], results)
      .finalMessage();

    expect(isEphemeral(opened)).toBe(true);
    const text = textOf(opened);
    expect(text).toContain(name);
    expect(text).toContain("$43.21");
    expect(text).toContain("0.123456");
    expect(text).toContain(`Listing ${listing.id}`);
    // The buttons belong to the one who opened it.
    const buy = button(opened, "Buy").custom_id;
    expect(buy.split(":")[2]).toBe(bot.users.bob.id);
  });

  it("GIVEN several filters WHEN a sticker, seller and float filter is given THEN only listings with that sticker by that seller in range show", async () => {
    const name = uniqueName();
    const seller = "42420000000000203";
    const match = bot.sandbox.control.createListing({
      market_hash_name: name,
      sellerPlatformId: seller,
      float_value: 0.05,
      stickers: [{ stickerId: 1104, slot: 2 }],
    });
    bot.sandbox.control.createListing({
      market_hash_name: name,
      sellerPlatformId: seller,
      float_value: 0.05,
    });
    bot.sandbox.control.createListing({
      market_hash_name: name,
      sellerPlatformId: seller,
      float_value: 0.3,
      stickers: [{ stickerId: 1104, slot: 2 }],
    });
    bot.sandbox.control.createListing({
      market_hash_name: name,
      sellerPlatformId: "42420000000000204",
      float_value: 0.05,
      stickers: [{ stickerId: 1104, slot: 2 }],
    });

    const results = await search({ item: name, stickers: "1104|2", seller, max_float: "0.07" });

    expect(listedIds(results)).toEqual([match.id]);
    expect(textOf(results)).toContain("stickers 1104 in slot 2");
  });

  it("GIVEN an item seen in search results WHEN a few of its words are typed in item THEN autocomplete suggests its full name", async () => {
    const name = uniqueName();
    bot.sandbox.control.createListing({ market_hash_name: name });
    await search({ item: name });
    const typed = name.split(" ").slice(3, 5).join(" ").toUpperCase();

    const answer = await bot.double
      .autocomplete(bot.users.alice, "search", { item: typed }, "item")
      .firstResponse();

    expect(answer.type).toBe(8);
    const choices = (answer.data?.choices ?? []) as { name: string; value: string }[];
    expect(choices.map((c) => c.value)).toEqual([name]);
  });
});

describe("bad input never reaches the marketplace", () => {
  const cases: { what: string; command: string; options: Record<string, string | number>; says: RegExp }[] = [
    {
      what: "a price that is not a number",
      command: "search",
      options: { min_price: "abc" },
      says: /`min_price`: .*dollars/,
    },
    {
      what: "a float above 1",
      command: "search",
      options: { max_float: "2" },
      says: /`max_float`: must be between 0 and 1/,
    },
    {
      what: "a minimum above the maximum",
      command: "search",
      options: { min_price: "30", max_price: "10" },
      says: /`min_price`: .*must be less than or equal to max_price/,
    },
    {
      what: "a listing id with letters",
      command: "listing view",
      options: { id: "12a" },
      says: /`id`: listing ids are numbers/,
    },
    {
      what: "a malformed sticker selector",
      command: "search",
      options: { stickers: "12|x" },
      says: /`stickers`: .*not a sticker/,
    },
    { what: "a seller id with letters", command: "search", options: { seller: "bob" }, says: /`seller`/ },
    {
      what: "a stall of a name, not an id",
      command: "stall",
      options: { user: "quartzfox" },
      says: /`user`/,
    },
  ];

  for (const c of cases) {
    it(`GIVEN ${c.what} WHEN /${c.command} runs THEN a private message names the option and the marketplace is not asked`, async () => {
      const before = sandboxTotal(bot);

      const handle = bot.double.slash(bot.users.alice, c.command, c.options);
      const first = await handle.firstResponse();
      const reply = await handle.finalMessage();

      // Nothing public is ever shown, not even a "thinking…" placeholder: the first answer is
      // the private message itself, or a private deferral.
      expect(first.type === 4 || (Number(first.data?.flags ?? 0) & 64) === 64).toBe(true);
      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toMatch(c.says);
      expect(sandboxTotal(bot)).toBe(before);
    });
  }
});

describe("/listing", () => {
  it("GIVEN a buy-now listing that takes offers WHEN viewed THEN Buy, Make offer, Watch and Similar show with its details, and no auction buttons", async () => {
    const listing = bot.sandbox.control.createListing({
      market_hash_name: uniqueName(),
      type: "buy_now",
      price: 2_500,
      float_value: 0.071234,
      paint_seed: 661,
      paint_index: 44,
      stickers: [{ stickerId: 1101, slot: 0 }],
      max_offer_discount: 1_500,
      reference_price: 3_000,
      sellerPlatformId: "42420000000000201",
    });

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: listing.id }).finalMessage();

    expect(isEphemeral(view)).toBe(true);
    expect(buttonLabels(view)).toEqual(["Buy", "Make offer", "Watch", "Similar", "Watch similar"]);
    const actions = componentsOf(view).map((c) => actionOf(c.custom_id ?? ""));
    expect(actions).toEqual([
      BUY_ACTIONS.start,
      OFFER_ACTIONS.open,
      WATCHLIST_ACTIONS.add,
      LISTING_ACTIONS.similar,
      WATCH_ACTIONS.similar,
    ]);
    expect(button(view, "Buy").custom_id.split(":")[1]).toBe(listing.id);
    const text = textOf(view);
    expect(text).toContain("$25.00");
    expect(text).toContain("$30.00\n16.7% below ref");
    expect(text).toContain("0.071234");
    expect(text).toContain("Seed\n661");
    expect(text).toContain("Paint index\n44");
    expect(text).toMatch(/Stickers\n.*slot 0/);
    expect(text).toMatch(/Seller\n\*\*mossy\\_trader\*\* · \d+ verified trades · median trade 30 min/);
    expect(text).toMatch(/Links\nInspect: `platform:\/\/inspect\/A\d+D\d+`/);
  });

  it("GIVEN a buy-now listing whose seller refuses offers WHEN viewed THEN there is no Make offer button", async () => {
    const listing = bot.sandbox.control.createListing({
      market_hash_name: uniqueName(),
      max_offer_discount: 0,
    });

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: listing.id }).finalMessage();

    expect(buttonLabels(view)).toEqual(["Buy", "Watch", "Similar", "Watch similar"]);
  });

  it("GIVEN an auction with bids WHEN viewed THEN Bid, Watch, Similar and Bids show with top bid, next bid and a Discord end time", async () => {
    const listing = bot.sandbox.control.createListing({
      market_hash_name: uniqueName(),
      type: "auction",
      reserve_price: 1_000,
      auction_duration_ms: 2 * 3_600_000,
    });
    bot.sandbox.control.placeCompetingBid(listing.id, 1_500);

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: listing.id }).finalMessage();

    expect(buttonLabels(view)).toEqual(["Bid", "Watch", "Similar", "Bids", "Watch similar"]);
    expect(actionOf(button(view, "Bid").custom_id)).toBe(BID_ACTIONS.open);
    expect(actionOf(button(view, "Bids").custom_id)).toBe(LISTING_ACTIONS.bids);
    const text = textOf(view);
    expect(text).toContain("Top bid\n$10.00");
    expect(text).toContain("Next bid from\n$10.50");
    expect(text).toMatch(/Ends\n<t:\d+:R>/);
  });

  it("GIVEN a sold listing WHEN viewed THEN it says sold and offers only Similar", async () => {
    const listing = bot.sandbox.control.createListing({ market_hash_name: uniqueName() });
    bot.sandbox.control.sellToBuyer(listing.id);

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: listing.id }).finalMessage();

    expect(textOf(view)).toContain("**Sold**");
    expect(buttonLabels(view)).toEqual(["Similar", "Watch similar"]);
  });

  it("GIVEN an auction with competing bids WHEN /listing bids and the Bids button are used THEN both list the bids, most recent first", async () => {
    const listing = bot.sandbox.control.createListing({
      market_hash_name: uniqueName(),
      type: "auction",
      reserve_price: 500,
    });
    bot.sandbox.control.placeCompetingBid(listing.id, 800);
    bot.sandbox.control.placeCompetingBid(listing.id, 2_000);
    const held = await marketGet<{ price: number }[]>(bot, `/listings/${listing.id}/bids`);

    const bids = await bot.double.slash(bot.users.alice, "listing bids", { id: listing.id }).finalMessage();

    expect(isEphemeral(bids)).toBe(true);
    const text = textOf(bids);
    expect(text).toContain(`${held.length} bids`);
    const amounts = [...text.matchAll(/^\*\*(\$[\d.,]+)\*\* · bidder/gm)].map((m) => m[1]);
    expect(amounts).toEqual(held.map((b) => `$${(b.price / 100).toFixed(2)}`));

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: listing.id }).finalMessage();
    const fromButton = await bot.double
      .button(bot.users.alice, button(view, "Bids").custom_id, view)
      .finalMessage();
    expect(textOf(fromButton)).toContain(`${held.length} bids`);
  });

  it("GIVEN listings of the same item WHEN /listing similar and the Similar button are used THEN comparable listings show, without the listing itself", async () => {
    const name = uniqueName();
    const [first, ...others] = bot.sandbox.control.createListings(4, { market_hash_name: name });
    if (!first) throw new Error("no listing created");
    const held = await marketGet<ListingJson[]>(bot, `/listings/${first.id}/similar`);
    const expected = held.map((l) => l.id).filter((id) => id !== first.id);

    const similar = await bot.double
      .slash(bot.users.alice, "listing similar", { id: first.id })
      .finalMessage();

    expect(listedIds(similar)).toEqual(expected.slice(0, 10));
    expect(listedIds(similar)).not.toContain(first.id);
    for (const other of others) expect(expected).toContain(other.id);

    const view = await bot.double.slash(bot.users.alice, "listing view", { id: first.id }).finalMessage();
    const fromButton = await bot.double
      .button(bot.users.alice, button(view, "Similar").custom_id, view)
      .finalMessage();
    expect(listedIds(fromButton)).toEqual(listedIds(similar));
  });

  it("GIVEN a listing id that does not exist WHEN viewed THEN the user reads that the marketplace could not find it", async () => {
    const reply = await bot.double.slash(bot.users.alice, "listing view", { id: "123" }).finalMessage();

    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("could not find that");
  });
});

describe("/history", () => {
  it("GIVEN an item with sales WHEN /history runs THEN a valid PNG chart is uploaded with the summary and up to 10 recent sales", async () => {
    // Seeded items have a month of sales; the items tests invent have none.
    const stall = await marketGet<{ data: ListingJson[] }>(bot, "/users/42420000000000203/stall?limit=50");
    const name =
      stall.data.map((l) => l.item.market_hash_name).find((n) => !n.startsWith("Test Carbine")) ?? "";
    const graph = await marketGet<{ count: number }[]>(bot, `/history/${encodeURIComponent(name)}/graph`);
    const sold = graph.reduce((n, p) => n + p.count, 0);
    expect(sold).toBeGreaterThan(0);

    const handle = bot.double.slash(bot.users.alice, "history", { item: name });
    const chart = await handle.finalMessage(15_000);

    expect(isEphemeral(chart)).toBe(false);
    const upload = bot.double.requests.find(
      (r) => r.path.includes(handle.token) && r.files.some((f) => f.filename === "price-history.png"),
    );
    expect(upload?.files[0]?.contentType).toBe("image/png");
    const png = chart.attachments.find((a) => a.filename === "price-history.png")?.data;
    expect(png?.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(png?.subarray(12, 16).toString("ascii")).toBe("IHDR");
    expect(png?.readUInt32BE(16)).toBe(800);
    expect(png?.readUInt32BE(20)).toBe(400);
    expect(chart.embeds[0]?.image?.url).toContain("price-history.png");
    const text = textOf(chart);
    for (const label of ["Last", "Min", "Max"])
      expect(text).toMatch(new RegExp(`${label}\\n\\$[\\d,]+\\.\\d\\d`));
    expect(text).toMatch(/7-day change\n(—|[▲▼] \d+\.\d%|0\.0%)/);
    expect(text).toContain(`Sales\n${sold}`);
    const sales =
      text
        .split("Recent sales\n")[1]
        ?.split("\n")
        .filter((l) => /^\*\*\$/.test(l)) ?? [];
    expect(sales.length).toBeGreaterThan(0);
    expect(sales.length).toBeLessThanOrEqual(10);
    expect(sales[0]).toMatch(/^\*\*\$[\d,]+\.\d\d\*\* · \d\.\d{6} · <t:\d+:d>$/);
  });

  it("GIVEN a name nobody ever sold WHEN /history runs THEN a private message says no sales are recorded", async () => {
    const reply = await bot.double.slash(bot.users.alice, "history", { item: uniqueName() }).finalMessage();

    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("No sales are recorded");
  });
});

describe("/stall", () => {
  it("GIVEN a private stall WHEN /stall runs THEN the user reads that this seller's stall is private", async () => {
    const reply = await bot.double
      .slash(bot.users.alice, "stall", { user: "42420000000000202" })
      .finalMessage();

    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("This seller's stall is private.");
  });

  it("GIVEN a public stall WHEN /stall runs and pages THEN the totals match the marketplace and pages do not repeat", async () => {
    const seller = "42420000000000205";
    const held = await marketGet<{ total_count: number; total_price: number }>(
      bot,
      `/users/${seller}/stall?limit=1`,
    );

    const first = await bot.double.slash(bot.users.alice, "stall", { user: seller }).finalMessage();

    expect(isEphemeral(first)).toBe(false);
    const text = textOf(first);
    expect(text).toContain("Stall of copperjay");
    expect(text).toContain(`**${held.total_count}** listings`);
    expect(text).toContain(
      `$${(held.total_price / 100).toLocaleString("en-US", { minimumFractionDigits: 2 })}`,
    );
    const firstIds = listedIds(first);
    expect(firstIds).toHaveLength(10);
    const second = await press(first, "Next");
    expect(listedIds(second)).toHaveLength(Math.min(10, held.total_count - 10));
    expect(listedIds(second).some((id) => firstIds.includes(id))).toBe(false);
  });
});

describe("/watchlist", () => {
  it("GIVEN a linked account WHEN a listing is added, shown and removed THEN the marketplace watchlist follows each step", async () => {
    const { alice } = bot.users;
    const listing = bot.sandbox.control.createListing({ market_hash_name: uniqueName() });
    const watched = async () =>
      (await marketGet<{ data: ListingJson[] }>(bot, "/me/watchlist?limit=100", alice.demo.apiKey)).data.map(
        (l) => l.id,
      );

    const added = await bot.double.slash(alice, "watchlist add", { listing: listing.id }).finalMessage();
    expect(isEphemeral(added)).toBe(true);
    expect(textOf(added)).toContain(`Listing \`${listing.id}\` is on your marketplace watchlist`);
    expect(await watched()).toContain(listing.id);

    const shown = await bot.double.slash(alice, "watchlist show").finalMessage();
    expect(isEphemeral(shown)).toBe(true);
    expect(listedIds(shown)).toContain(listing.id);

    const removed = await bot.double.slash(alice, "watchlist remove", { listing: listing.id }).finalMessage();
    expect(textOf(removed)).toContain("no longer on your marketplace watchlist");
    expect(await watched()).not.toContain(listing.id);
  });

  it("GIVEN a listing view WHEN Watch is pressed THEN the listing joins the marketplace watchlist and the view then offers Unwatch", async () => {
    const { alice } = bot.users;
    const listing = bot.sandbox.control.createListing({ market_hash_name: uniqueName() });
    const view = await bot.double.slash(alice, "listing view", { id: listing.id }).finalMessage();

    const answer = await bot.double.button(alice, button(view, "Watch").custom_id, view).finalMessage();

    expect(textOf(answer)).toContain("is on your marketplace watchlist");
    const now = await marketGet<ListingJson>(bot, `/listings/${listing.id}`, alice.demo.apiKey);
    expect(now.is_watchlisted).toBe(true);
    const again = await bot.double.slash(alice, "listing view", { id: listing.id }).finalMessage();
    expect(buttonLabels(again)).toContain("Unwatch");
  });

  it("GIVEN a watchlist longer than a page WHEN show pages to the end THEN each watched listing shows once", async () => {
    const { alice } = bot.users;
    for (const l of bot.sandbox.control.createListings(11, { market_hash_name: uniqueName() })) {
      await bot.double.slash(alice, "watchlist add", { listing: l.id }).finalMessage();
    }
    const total = (
      await marketGet<{ data: ListingJson[] }>(bot, "/me/watchlist?limit=100", alice.demo.apiKey)
    ).data.length;
    expect(total).toBeGreaterThan(10);

    let page = await bot.double.slash(alice, "watchlist show").finalMessage();
    const seen = [...listedIds(page)];
    while (button(page, "Next").disabled !== true) {
      page = await press(page, "Next");
      seen.push(...listedIds(page));
    }

    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it("GIVEN no linked account WHEN bob shows his watchlist THEN he is told to link first and the marketplace is not asked", async () => {
    const before = routeHits(bot, "GET /me/watchlist");

    const reply = await bot.double.slash(bot.users.bob, "watchlist show").finalMessage();

    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("Link your marketplace account first");
    expect(routeHits(bot, "GET /me/watchlist")).toBe(before);
  });
});
