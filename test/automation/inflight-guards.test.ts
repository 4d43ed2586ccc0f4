// Guards and the user's own changes while a request is in flight, end to end through Discord and
// the sandbox: a guard's write keeps to the floor or ceiling stored when it is sent, and never
// undoes an edit of the user's (issue 50). A sandbox latency fault holds one request of the pair in
// the air; the other side runs once the sandbox has it (its fault used), then both are awaited.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toView } from "../../src/trading/buyOrders.ts";
import type { StoredMessage } from "../support/discord.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import { answer, hits, isEphemeral, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { until } from "../reliability/support.ts";
import { orderOf, placeOrder, startGuardSuite, type GuardSuite } from "../guards/support.ts";

const PATCH_LISTING = "PATCH /listings/{listing_id}";
const PATCH_ORDER = "PATCH /buy-orders/{order_id}";
/** How long the held request waits in the sandbox: the other side's command takes a fraction. */
const HELD_MS = 3_000;
/** A command that waits for the held request answers after it. */
const ANSWER_MS = 20_000;

let s: GuardSuite;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  s = await startGuardSuite();
  ({ alice, bob } = s.bot.users);
});

afterEach(async () => {
  s.bot.sandbox.control.clearFaults();
  // Each test's guards run in its own passes only.
  await s.bot.db.prisma.guard.updateMany({ where: { status: "active" }, data: { status: "off" } });
});

afterAll(async () => {
  const errors = s?.bot.errorLogs() ?? [];
  await s?.stop();
  expect(errors).toEqual([]);
});

/** Holds the next request matching method and path in the sandbox for HELD_MS. */
function holdNext(bot: Bot, method: string, path: string): void {
  bot.sandbox.control.injectFault({ method, path, kind: "latency", ms: HELD_MS, times: 1 });
}

/** Resolves once the held request reached the sandbox (its one-use fault is used up). */
async function heldRequestArrived(bot: Bot): Promise<void> {
  await until(async () => {
    const res = await fetch(`${bot.sandbox.controlUrl}/faults`);
    return ((await res.json()) as { faults: unknown[] }).faults.length === 0;
  }, "the held request to reach the sandbox");
}

/** Settles `p`, telling whether it was still pending when `other` settled (the order of the two). */
async function outlasts(p: Promise<unknown>, other: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await other.catch(() => undefined);
  return !done;
}

async function slash(user: BotUser, command: string, opts: Record<string, string | number | boolean>) {
  return answer(s.bot.double.slash(user, command, opts), ANSWER_MS);
}

const guardRow = (subjectId: string) => s.bot.db.prisma.guard.findFirstOrThrow({ where: { subjectId } });
const digestFor = (user: BotUser, subjectId: string): string =>
  s
    .dms(user)
    .filter((m: StoredMessage) => textOf(m).includes(subjectId))
    .map(textOf)
    .join("\n");

const sellerListing = (user: BotUser, item: string, cents: number) =>
  s.bot.sandbox.control.createListing({
    sellerPlatformId: user.demo.platformId,
    market_hash_name: item,
    price: cents,
    float_value: 0.2,
  });
const rivalListing = (item: string, cents: number) =>
  s.bot.sandbox.control.createListing({ market_hash_name: item, price: cents, float_value: 0.2 });
const priceOf = async (user: BotUser, id: string) => (await s.market.as(user).getListing(id)).price;

/**
 * The user's listing at $20 guarded at a $10 floor and a rival at $15; a guard pass started with
 * one of its requests held in the sandbox, once that request arrived: its search for rivals (it has
 * read the listing at $20), or its price change to $14.75.
 */
async function passWithHeld(user: BotUser, tag: string, held: "search" | "price change") {
  const item = uniqueItemName(tag);
  const mine = sellerListing(user, item, 2000);
  await slash(user, "sell guard", { listing: mine.id, floor: "10", step: "0.25" });
  rivalListing(item, 1500);
  const patches = hits(s.bot, PATCH_LISTING);
  if (held === "search") holdNext(s.bot, "GET", "/listings");
  else holdNext(s.bot, "PATCH", `/listings/${mine.id}`);
  const pass = s.pass();
  await heldRequestArrived(s.bot);
  return { mine, patches, pass };
}

describe("a listing guard's floor raised while its pass is running", () => {
  it("GIVEN a floor of $10 and a rival at $15 WHEN the user raises the floor to $18 while the pass reads the market THEN no price below $18 is sent, the listing stays at $20, AND the guard stops saying the rival is at or below its floor", async () => {
    const { mine, patches, pass } = await passWithHeld(alice, "inflight-floor", "search");
    const raised = await slash(alice, "sell guard", { listing: mine.id, floor: "18", step: "0.25" });
    expect(textOf(raised)).toContain("Guard on: listing");
    expect(textOf(raised)).toContain("$18.00");
    await pass;

    expect(hits(s.bot, PATCH_LISTING)).toBe(patches);
    expect(await priceOf(alice, mine.id)).toBe(2000);
    expect((await guardRow(mine.id)).status).toBe("stopped");
    expect(digestFor(alice, mine.id)).toMatch(
      /stopped\*\* at its floor of \$18\.00: a rival listing at \$15\.00 is at or below your floor; your listing stays at \$20\.00/,
    );
  });

  it("GIVEN the guard's price change to $14.75 in flight WHEN the user sets a floor of $18 THEN the command waits for it and refuses a floor above the price the listing now has, AND the floor stored stays the one the change was sent under", async () => {
    const { mine, pass } = await passWithHeld(bob, "inflight-floor-sent", "price change");
    const command = slash(bob, "sell guard", { listing: mine.id, floor: "18", step: "0.25" });
    const waited = await outlasts(command, pass);
    const refused = await command;

    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("is above the listing's price of $14.75");
    expect(await priceOf(bob, mine.id)).toBe(1475);
    const row = await guardRow(mine.id);
    expect(Number(row.limitCents)).toBe(1000);
    expect(row.status).toBe("active");
    expect(waited).toBe(true);
  });
});

describe("a listing guard and the user's own reprice", () => {
  it("GIVEN a pass that read the listing at $20 and a rival at $15 WHEN the user reprices it to $12 while the pass's search is held THEN the guard sends no change: the listing stays at the user's $12, never raised to $14.75", async () => {
    const { mine, patches, pass } = await passWithHeld(alice, "inflight-reprice-lower", "search");
    const repriced = await slash(alice, "sell reprice", { listing: mine.id, price: "12" });
    expect(textOf(repriced)).toContain("Repriced");
    await pass;

    expect(hits(s.bot, PATCH_LISTING)).toBe(patches + 1);
    expect(await priceOf(alice, mine.id)).toBe(1200);
  });

  it("GIVEN the guard's price change to $14.75 in flight WHEN the user reprices to $16 THEN the reprice waits for it and is sent after: the listing ends at the user's $16", async () => {
    const { mine, pass } = await passWithHeld(bob, "inflight-reprice-after", "price change");
    const command = slash(bob, "sell reprice", { listing: mine.id, price: "16" });
    const waited = await outlasts(command, pass);
    expect(textOf(await command)).toContain("Repriced");

    expect(await priceOf(bob, mine.id)).toBe(1600);
    expect(waited).toBe(true);
  });
});

describe("a buy-order guard's raise and the user's own edit of the order", () => {
  const rival = (item: string, cents: number) =>
    s.bot.sandbox.control.createRivalBuyOrder({ marketHashName: item, maxPrice: cents, maxFloat: 0.5 });
  const standing = (orderId: string) =>
    s.bot.db.prisma.purchase.findMany({
      where: { kind: "buy_order", subjectId: orderId, status: { in: ["pending", "open", "unknown"] } },
    });

  it("GIVEN an order for 3 at float ≤ 0.5 whose guard's raise is in flight WHEN the user edits it to 1 at float ≤ 0.05 THEN the edit is applied after the raise lands and stays: 1 at ≤ 0.05 at the raised price, AND the order holds one commitment", async () => {
    const item = uniqueItemName("inflight-raise");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "10", quantity: 3, maxFloat: "0.5" });
    await slash(alice, "buyorder guard", { order: orderId, ceiling: "12", step: "0.25" });
    rival(item, 1050);

    holdNext(s.bot, "PATCH", `/buy-orders/${orderId}`); // the guard's raise
    const pass = s.pass();
    await heldRequestArrived(s.bot);
    const edited = await slash(alice, "buyorder edit", { order: orderId, quantity: 1, max_float: "0.05" });
    expect(textOf(edited)).toContain("Buy order updated");
    await pass;

    const order = await orderOf(s.market, alice, orderId);
    expect(order.qty).toBe(1);
    expect(toView(order).constraints.maxFloat).toBe(0.05);
    expect(order.price).toBe(1075);
    expect((await standing(orderId)).map((p) => [p.status, Number(p.totalCents)])).toEqual([["open", 1075]]);
  });

  it("GIVEN the user's edit of a guarded order in flight WHEN the guard's pass runs THEN the guard sends nothing from the order it read before the edit, the order ends as the user set it, AND it holds one commitment", async () => {
    const item = uniqueItemName("inflight-edit");
    const orderId = await placeOrder(s.bot, bob, { item, maxPrice: "10", quantity: 3, maxFloat: "0.5" });
    await slash(bob, "buyorder guard", { order: orderId, ceiling: "12", step: "0.25" });
    rival(item, 1050);
    const patches = hits(s.bot, PATCH_ORDER);

    holdNext(s.bot, "PATCH", `/buy-orders/${orderId}`); // the user's edit
    const edit = slash(bob, "buyorder edit", { order: orderId, quantity: 1, max_float: "0.05" });
    await heldRequestArrived(s.bot);
    await s.pass();
    expect(textOf(await edit)).toContain("Buy order updated");

    expect(hits(s.bot, PATCH_ORDER)).toBe(patches + 1);
    const order = await orderOf(s.market, bob, orderId);
    expect(order.qty).toBe(1);
    expect(toView(order).constraints.maxFloat).toBe(0.05);
    expect(order.price).toBe(1000);
    expect((await standing(orderId)).map((p) => [p.status, Number(p.totalCents)])).toEqual([["open", 1000]]);
    expect((await guardRow(orderId)).status).toBe("active");
  });

  it("GIVEN an edit whose answer was lost (its commitment unknown, the one before still open) WHEN the user edits the order again and it is answered THEN the order holds one commitment, the new one", async () => {
    const item = uniqueItemName("lost-edit");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "10", quantity: 3 });
    s.bot.sandbox.control.injectFault({
      method: "PATCH",
      path: `/buy-orders/${orderId}`,
      kind: "status",
      status: 502,
      times: 1,
    });
    const lost = await slash(alice, "buyorder edit", { order: orderId, quantity: 2 });
    expect(isEphemeral(lost)).toBe(true);
    expect((await standing(orderId)).map((p) => p.status).sort()).toEqual(["open", "unknown"]);

    const edited = await slash(alice, "buyorder edit", { order: orderId, quantity: 1 });
    expect(textOf(edited)).toContain("Buy order updated");
    expect((await standing(orderId)).map((p) => [p.status, Number(p.totalCents)])).toEqual([["open", 1000]]);
  });
});
