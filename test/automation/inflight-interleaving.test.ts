// Seeded random interleavings of the automation and the user's own changes while a request is in
// flight, end to end through Discord and the sandbox (issue 50). Each round holds one background
// write or read in the sandbox (a guard pass's search, a guard's price change or raise, an armed
// buy) and, while it is held, runs one random command of the user's: a raised floor, a lowered
// or raised ceiling, an edit of the order, a re-arm, a disarm, a tier that widens the rule, Stop
// everything, or unlink. Every confirmation the user read is recorded with the moment its reply
// appeared; after each seed, every write the sandbox journaled is checked against the last
// confirmation before it arrived: no listing price under the floor, no raise over the ceiling or
// undoing the user's edit, no buy while not armed, over the arming's buys or above its ceiling,
// nothing at all after unlink, and every commitment settled once. A failing seed is named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WriteRecord } from "../../src/sandbox/stats.ts";
import { createRng, type Rng } from "../../src/sandbox/rng.ts";
import type { StoredMessage } from "../support/discord.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  isEphemeral,
  marketOf,
  textOf,
  type MarketView,
} from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { until } from "../reliability/support.ts";
import { guardsOf, orderOf, placeOrder } from "../guards/support.ts";
import { deliverAll, feedOnce } from "./support.ts";

const SEEDS = Number(process.env.INFLIGHT_SEEDS ?? 5);
const FIRST_SEED = Number(process.env.INFLIGHT_SEED ?? 1);
const ROUNDS = 3;
/** How long the held request waits in the sandbox: the user's command runs meanwhile. */
const HELD_MS = 1_500;
/** A command that waits for a write in flight answers after it. */
const ANSWER_MS = 20_000;
/** The rule's ceiling as confirmed at Arm, in cents. */
const RULE_MAX_CENTS = 3_000;

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  bot = await startQuietBot(["alice"]);
  alice = bot.users.alice;
  market = marketOf(bot);
  await guardsOf(bot).stop(); // each pass is run by the test
  const caps = await say("account settings", { per_purchase_cap: "100", daily_cap: "5000" });
  expect(caps.text).toContain("Settings saved");
  await feed(); // the feed's mark: listings after it are new
}, 60_000);

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await market?.close();
  await bot?.stop();
  expect(errors).toEqual([]);
});

const deliver = () => deliverAll(bot);
const feed = () => feedOnce(bot);
async function guardPass(): Promise<void> {
  await guardsOf(bot).runOnce();
  await deliver();
}

/** What the user read, and when it appeared (the reply, or its edit when it was deferred). */
interface Said {
  text: string;
  at: number;
  message: StoredMessage;
}
const saidOf = (m: StoredMessage): Said => ({ text: textOf(m), at: m.editedAt ?? m.createdAt, message: m });
async function say(command: string, options: Record<string, string | number | boolean> = {}): Promise<Said> {
  return saidOf(await answer(bot.double.slash(alice, command, options), ANSWER_MS));
}
async function press(on: StoredMessage, label: string): Promise<Said | undefined> {
  let id: string;
  try {
    id = buttonId(on, label);
  } catch {
    return undefined; // nothing to press: the command was refused
  }
  return saidOf(await answer(bot.double.button(alice, id, on), ANSWER_MS));
}

/** What the user has confirmed, as it stands after one confirmation. */
interface Confirmed {
  linked: boolean;
  listingGuard: boolean;
  floorCents: number;
  orderGuard: boolean;
  ceilingCents: number;
  qty: number;
  maxFloat: number;
  armed: boolean;
  /** Which arming the buys count against (a new one for each Arm). */
  arming: number;
  maxBuys: number;
}
interface Confirmation {
  /** When the user's command was sent and when its reply appeared. */
  sentAt: number;
  at: number;
  what: string;
  state: Confirmed;
  /** The order's quantity and float the user's own edit asked for (its own PATCH carries them). */
  edit?: { qty: number; maxFloat: number };
}

interface Seed {
  rng: Rng;
  listingId: string;
  orderId: string;
  rule: string;
  tier: string;
  ruleItem: string;
  listingItem: string;
  orderItem: string;
  /** Listings created for the rule: the only ones it may buy. */
  ruleListings: Map<string, number>;
  history: Confirmation[];
}

const current = (s: Seed): Confirmed => s.history[s.history.length - 1]!.state;
function confirm(
  s: Seed,
  said: Said,
  sentAt: number,
  what: string,
  change: Partial<Confirmed>,
  edit?: Confirmation["edit"],
) {
  s.history.push({
    sentAt,
    at: said.at,
    what,
    state: { ...current(s), ...change },
    ...(edit ? { edit } : {}),
  });
}
/** The last confirmation the user had read when a request arrived. */
function stateAt(s: Seed, t: number): Confirmation {
  let found = s.history[0]!;
  for (const c of s.history) if (c.at < t) found = c;
  return found;
}

async function armLive(s: Seed, maxBuys: number): Promise<void> {
  const sentAt = Date.now();
  const quote = await say("watch arm", { rule: s.rule, mode: "live", max_buys: maxBuys });
  const armed = await press(quote.message, "Arm");
  if (armed?.text.includes(`Armed live: ${s.rule}`)) {
    const c = current(s);
    confirm(s, armed, sentAt, `arm ×${maxBuys}`, { armed: true, arming: c.arming + 1, maxBuys });
  }
}

async function setUp(seed: number): Promise<Seed> {
  const rng = createRng(seed);
  const tag = `inflight-${seed}`;
  const s: Seed = {
    rng,
    listingId: "",
    orderId: "",
    rule: `rule ${tag}`,
    tier: `tier-${seed}`,
    ruleItem: uniqueItemName(`${tag}-rule`),
    listingItem: uniqueItemName(`${tag}-listing`),
    orderItem: uniqueItemName(`${tag}-order`),
    ruleListings: new Map(),
    history: [],
  };
  const start = Date.now();
  s.history.push({
    sentAt: start,
    at: start,
    what: "set up",
    state: {
      linked: true,
      listingGuard: false,
      floorCents: 0,
      orderGuard: false,
      ceilingCents: 0,
      qty: 3,
      maxFloat: 0.5,
      armed: false,
      arming: 0,
      maxBuys: 0,
    },
  });

  const mine = bot.sandbox.control.createListing({
    sellerPlatformId: alice.demo.platformId,
    market_hash_name: s.listingItem,
    price: 2_000,
    float_value: 0.2,
  });
  s.listingId = mine.id;
  const floor = await say("sell guard", { listing: mine.id, floor: "10", step: "0.25" });
  expect(floor.text).toContain("Guard on: listing");
  confirm(s, floor, start, "listing guard $10", { listingGuard: true, floorCents: 1_000 });

  s.orderId = await placeOrder(bot, alice, {
    item: s.orderItem,
    maxPrice: "10",
    quantity: 3,
    maxFloat: "0.5",
  });
  const ceiling = await say("buyorder guard", { order: s.orderId, ceiling: "12", step: "0.25" });
  expect(ceiling.text).toContain("Guard on");
  confirm(s, ceiling, start, "order guard $12", { orderGuard: true, ceilingCents: 1_200 });

  expect((await say("watch tier add", { name: s.tier, seeds: "661" })).text).toContain("seed");
  expect((await say("watch add", { name: s.rule, item: s.ruleItem, max_price: 30 })).text).toContain(
    "Watching",
  );
  expect((await say("watch filters", { rule: s.rule, tier: s.tier })).text).toContain(`tier "${s.tier}"`);
  await armLive(s, rng.int(1, 3));
  expect(current(s).armed).toBe(true);
  return s;
}

/** New competition for both guards and a new listing for the rule: each background step has work. */
function freshMarket(s: Seed, round: number): void {
  bot.sandbox.control.createListing({
    market_hash_name: s.listingItem,
    price: 1_500 - round * 150,
    float_value: 0.2,
  });
  bot.sandbox.control.createRivalBuyOrder({
    marketHashName: s.orderItem,
    maxPrice: 1_050 + round * 50,
    maxFloat: 0.5,
  });
  const price = s.rng.int(10, 28) * 100;
  const listing = bot.sandbox.control.createListing({ market_hash_name: s.ruleItem, price, paint_seed: 661 });
  s.ruleListings.set(listing.id, price);
}

type Background = { name: string; hold: { method: string; path: string }; run: () => Promise<void> };
const backgrounds = (s: Seed): Background[] => [
  { name: "guard pass, search held", hold: { method: "GET", path: "/listings" }, run: guardPass },
  {
    name: "guard pass, price change held",
    hold: { method: "PATCH", path: `/listings/${s.listingId}` },
    run: guardPass,
  },
  {
    name: "guard pass, raise held",
    hold: { method: "PATCH", path: `/buy-orders/${s.orderId}` },
    run: guardPass,
  },
  { name: "feed, armed buy held", hold: { method: "POST", path: "/listings/buy" }, run: feed },
];

type Action = { name: string; run: () => Promise<void> };
function actions(s: Seed): Action[] {
  const { rng } = s;
  return [
    {
      name: "raise the floor",
      async run() {
        const dollars = [12, 14, 18][rng.int(0, 2)]!;
        const sentAt = Date.now();
        const said = await say("sell guard", { listing: s.listingId, floor: String(dollars), step: "0.25" });
        if (said.text.includes("Guard on: listing"))
          confirm(s, said, sentAt, `floor $${dollars}`, { listingGuard: true, floorCents: dollars * 100 });
      },
    },
    {
      name: "change the ceiling",
      async run() {
        const dollars = [10.5, 11, 13][rng.int(0, 2)]!;
        const sentAt = Date.now();
        const said = await say("buyorder guard", {
          order: s.orderId,
          ceiling: String(dollars),
          step: "0.25",
        });
        if (said.text.includes("Guard on"))
          confirm(s, said, sentAt, `ceiling $${dollars}`, {
            orderGuard: true,
            ceilingCents: Math.round(dollars * 100),
          });
      },
    },
    {
      name: "edit the order",
      async run() {
        const qty = rng.int(1, 3);
        const maxFloat = [0.05, 0.2, 0.5][rng.int(0, 2)]!;
        const sentAt = Date.now();
        const said = await say("buyorder edit", {
          order: s.orderId,
          quantity: qty,
          max_float: String(maxFloat),
        });
        if (said.text.includes("Buy order updated"))
          confirm(s, said, sentAt, `edit ${qty} at ≤ ${maxFloat}`, { qty, maxFloat }, { qty, maxFloat });
      },
    },
    { name: "re-arm", run: () => armLive(s, rng.int(1, 3)) },
    {
      name: "disarm",
      async run() {
        const sentAt = Date.now();
        const said = await say("watch disarm", { rule: s.rule });
        if (said.text.includes("Disarmed")) confirm(s, said, sentAt, "disarm", { armed: false });
      },
    },
    {
      name: "widen the tier",
      async run() {
        const sentAt = Date.now();
        const said = await say("watch tier add", { name: s.tier, seeds: "661, 955" });
        if (said.text.includes("**disarmed**")) confirm(s, said, sentAt, "tier widened", { armed: false });
      },
    },
    {
      name: "stop everything",
      async run() {
        const sentAt = Date.now();
        const overview = await say("automation");
        const sure = await press(overview.message, "Stop everything");
        const done = sure && (await press(sure.message, "Yes, stop everything"));
        if (done?.text.includes("Stopped"))
          confirm(s, done, sentAt, "stop everything", {
            armed: false,
            listingGuard: false,
            orderGuard: false,
          });
      },
    },
    {
      name: "unlink",
      async run() {
        const sentAt = Date.now();
        const said = await say("account unlink");
        expect(isEphemeral(said.message)).toBe(true);
        if (!/^❌/.test(said.text))
          confirm(s, said, sentAt, "unlink", {
            linked: false,
            armed: false,
            listingGuard: false,
            orderGuard: false,
          });
      },
    },
  ];
}

/** Resolves once the held request reached the sandbox, or the step ended without sending it. */
async function heldOrDone(step: Promise<void>): Promise<void> {
  let done = false;
  void step.then(
    () => (done = true),
    () => (done = true),
  );
  await until(async () => {
    if (done) return true;
    const res = await fetch(`${bot.sandbox.controlUrl}/faults`);
    return ((await res.json()) as { faults: unknown[] }).faults.length === 0;
  }, "the held request to reach the sandbox, or its step to end");
}

const num = (v: unknown): number => Number(v);

/** Every way a journaled write went past what the user had confirmed when it arrived. */
function overreach(s: Seed, writes: readonly WriteRecord[]): string[] {
  const problems: string[] = [];
  const buysPerArming = new Map<number, number>();
  for (const w of writes) {
    const c = stateAt(s, w.arrivedAt);
    const at = `${w.route} ${JSON.stringify(w.body)} after "${c.what}"`;
    const body = (w.body ?? {}) as Record<string, unknown>;
    if (!c.state.linked) {
      problems.push(`${at}: sent with the key of an unlinked account`);
      continue;
    }
    if (w.route === "PATCH /listings/{listing_id}" && w.path.endsWith(`/${s.listingId}`)) {
      if (!c.state.listingGuard) problems.push(`${at}: the listing guard was off`);
      else if (num(body.price) < c.state.floorCents)
        problems.push(`${at}: under the floor of ${c.state.floorCents}`);
    } else if (w.route === "PATCH /buy-orders/{order_id}" && w.path.endsWith(`/${s.orderId}`)) {
      // The user's own edit in flight: it carries what it asked for, sent before its reply.
      const own = s.history.find(
        (h) =>
          h.edit !== undefined &&
          h.sentAt <= w.arrivedAt &&
          w.arrivedAt <= h.at &&
          num(body.quantity) === h.edit.qty &&
          num(body.max_float) === h.edit.maxFloat,
      );
      if (own) continue;
      if (!c.state.orderGuard) problems.push(`${at}: the order guard was off`);
      else if (num(body.max_price) > c.state.ceilingCents)
        problems.push(`${at}: over the ceiling of ${c.state.ceilingCents}`);
      else if (num(body.quantity) !== c.state.qty || num(body.max_float) !== c.state.maxFloat)
        problems.push(`${at}: undoes the user's ${c.state.qty} at ≤ ${c.state.maxFloat}`);
    } else if (w.route === "POST /listings/buy") {
      const ids = (body.contract_ids as string[] | undefined) ?? [];
      if (!c.state.armed) problems.push(`${at}: the rule was not armed`);
      for (const id of ids) {
        const price = s.ruleListings.get(id);
        if (price === undefined) problems.push(`${at}: ${id} is not a listing the rule matches`);
        else if (price > RULE_MAX_CENTS) problems.push(`${at}: ${id} is above the rule's ceiling`);
      }
      const n = (buysPerArming.get(c.state.arming) ?? 0) + ids.length;
      buysPerArming.set(c.state.arming, n);
      if (n > c.state.maxBuys) problems.push(`${at}: buy ${n} of an arming confirmed for ${c.state.maxBuys}`);
    }
  }
  return problems;
}

/** Every commitment settled once: none left pending, one standing per order, one per bought listing. */
async function unsettled(s: Seed): Promise<string[]> {
  const problems: string[] = [];
  const rows = await bot.db.prisma.purchase.findMany({ where: { user: { discordId: alice.id } } });
  for (const r of rows.filter((r) => r.status === "pending"))
    problems.push(`${r.kind} ${r.subjectId}: still pending after everything settled`);
  const standing = rows.filter(
    (r) =>
      r.kind === "buy_order" && r.subjectId === s.orderId && (r.status === "open" || r.status === "unknown"),
  );
  if (standing.length > 1)
    problems.push(
      `order ${s.orderId}: ${standing.length} commitments stand (${standing.map((r) => r.status).join(", ")})`,
    );
  if (current(s).linked && standing.length === 1) {
    const order = await orderOf(market, alice, s.orderId);
    const exposure = order.price * (order.qty - (order.bought_item_count ?? 0));
    if (Number(standing[0]!.totalCents) !== exposure)
      problems.push(`order ${s.orderId}: holds ${Number(standing[0]!.totalCents)}, the order is ${exposure}`);
  }
  const trades = await market.as(alice).getMyTrades({ role: "buyer", limit: 100 });
  const bought = new Set(trades.trades.map((t) => t.contract_id));
  for (const [id, price] of s.ruleListings) {
    const mine = rows.filter((r) => r.kind === "auto_buy" && r.subjectId === id);
    const spent = mine.filter((r) => r.status === "succeeded");
    if (mine.length > 1) problems.push(`listing ${id}: ${mine.length} commitments`);
    if (bought.has(id) !== (spent.length === 1))
      problems.push(`listing ${id}: bought ${bought.has(id)}, counted ${spent.length}`);
    if (spent.length === 1 && Number(spent[0]!.totalCents) !== price)
      problems.push(`listing ${id}: counted ${Number(spent[0]!.totalCents)} for a price of ${price}`);
  }
  return problems;
}

async function runSeed(seed: number): Promise<string[]> {
  const s = await setUp(seed);
  const from = bot.sandbox.control.writes().length;
  const played: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    freshMarket(s, round);
    const options = backgrounds(s);
    const background = options[s.rng.int(0, options.length - 1)]!;
    const moves = actions(s);
    const action = moves[s.rng.int(0, moves.length - 1)]!;
    played.push(`${background.name} × ${action.name}`);
    bot.sandbox.control.injectFault({ ...background.hold, kind: "latency", ms: HELD_MS, times: 1 });
    const step = background.run();
    try {
      await heldOrDone(step);
      await Promise.all([action.run(), step]);
    } finally {
      bot.sandbox.control.clearFaults();
    }
  }
  // After the last change: one more of each, so a widening left behind would show.
  freshMarket(s, ROUNDS);
  await guardPass();
  await feed();

  const writes = bot.sandbox.control
    .writes()
    .slice(from)
    .filter((w) => w.key === alice.demo.apiKey);
  const problems = [...overreach(s, writes), ...(await unsettled(s))];
  if (!current(s).linked) await bot.link(alice);
  return problems.map((p) => `seed ${seed} (${played.join("; ")}): ${p}`);
}

describe("automation and the user's changes, interleaved while requests are in flight", () => {
  it(`GIVEN ${SEEDS} seeded runs of guard passes, armed buys and their settlements, each with one request held, WHEN the user raises a floor, changes a ceiling, edits the order, re-arms, disarms, widens a tier, stops everything or unlinks meanwhile THEN no write went past what the user had confirmed when it arrived, AND every commitment is settled once`, async () => {
    const problems: string[] = [];
    for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) problems.push(...(await runSeed(seed)));
    expect(problems).toEqual([]);
  }, 600_000);
});
