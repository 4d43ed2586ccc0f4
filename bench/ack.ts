// Interaction acknowledgement: dispatch -> first accepted callback at the local Discord, for every
// slash command and subcommand with valid sample options, with the marketplace answering at once and
// answering after 10 seconds (a sandbox latency fault on every route).
import { createMarketClient, type MarketClient } from "../src/market/client.ts";
import type { DoubleUser, InteractionHandle, NamedOptions } from "../src/playground/discord/index.ts";
import type { DemoUser } from "../src/sandbox/index.ts";
import {
  distribution,
  logSink,
  progress,
  round,
  seededRandom,
  sleep,
  type Distribution,
} from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import { benchUsers, shuffle } from "./lib/population.ts";
import { linkTrader, startBenchWorld, type BenchWorld } from "./lib/world.ts";

export interface AckOptions {
  /** Times each command runs per mode (each round with a user of its own). */
  rounds: number;
  /** Pause between dispatches. */
  spacingMs: number;
  marketLatencyMs: number;
}

export interface AckMode {
  marketLatencyMs: number;
  interactions: number;
  /** Interactions without an accepted callback (token expired after 3 s, or none came). */
  unanswered: number;
  overall: Distribution;
  /** Per command path: p99 and max of its samples. */
  commands: Record<string, { n: number; p99: number; max: number; types: number[] }>;
  /** The command with the highest p99. */
  slowest: { command: string; p99: number };
}

export interface AckResult {
  rounds: number;
  commands: number;
  modes: AckMode[];
  problems: Record<string, number>;
}

interface Sample {
  path: string;
  options: NamedOptions;
  user: DoubleUser;
}

/** A Discord user linked to a marketplace account (stored directly, as /account link would). */
interface Trader {
  discord: DoubleUser;
  market: DemoUser;
  dbId: number;
}

/** Every leaf command of the registered definitions: "help", "account link", "watch add"... */
function leafCommands(world: BenchWorld): string[] {
  const out: string[] = [];
  for (const def of world.app.registry.definitions) {
    const options = ((def as { options?: unknown }).options ?? []) as {
      name: string;
      type: number;
      options?: { name: string; type: number }[];
    }[];
    const subs = options.filter((o) => o.type === 1 || o.type === 2);
    if (subs.length === 0) out.push(def.name);
    for (const sub of subs) {
      if (sub.type === 1) out.push(`${def.name} ${sub.name}`);
      else for (const leaf of sub.options ?? []) out.push(`${def.name} ${sub.name} ${leaf.name}`);
    }
  }
  return out;
}

async function traderOf(world: BenchWorld, discord: DoubleUser, name: string): Promise<Trader> {
  const t = await linkTrader(world, discord.id, name);
  return { discord, market: t.market, dbId: t.dbId };
}

/** One round's samples: fixtures made in the sandbox and the database first, so every option is valid. */
async function roundSamples(
  world: BenchWorld,
  client: MarketClient,
  trader: Trader,
  unlinker: Trader,
  r: number,
): Promise<Sample[]> {
  const c = world.sandbox.control;
  const me = trader.market.platformId;
  const api = client.forKey(trader.market.apiKey);
  const publicListing = c.createListing({ price: 500 });
  const auction = c.createListing({ type: "auction", price: 500 });
  const ownToReprice = c.createListing({ sellerPlatformId: me, price: 1000 });
  const ownToDelist = c.createListing({ sellerPlatformId: me, price: 1000 });
  const ownWithOffer = c.createListing({ sellerPlatformId: me, price: 1000, max_offer_discount: 5000 });
  const offer = c.makeOffer(ownWithOffer.id, 900);
  const [tradeView, tradeAccept, tradeCancel] = [c.createSaleOf(me), c.createSaleOf(me), c.createSaleOf(me)];
  const asset = c.inventory(me)[0];
  if (asset === undefined) throw new Error("the trader has no asset to list");
  const item = publicListing.item.market_hash_name;
  const orderToEdit = await api.createBuyOrder({ market_hash_name: item, max_price: 100, quantity: 1 });
  const orderToCancel = await api.createBuyOrder({ market_hash_name: item, max_price: 100, quantity: 1 });
  const orderToGuard = await api.createBuyOrder({ market_hash_name: item, max_price: 100, quantity: 1 });
  await api.addToWatchlist(publicListing.id);
  const rule = (name: string, enabled = true) => ({
    userId: trader.dbId,
    name,
    filters: { item, max_price: 1000 },
    itemKey: item.toLowerCase(),
    enabled,
  });
  await world.db.prisma.watchRule.createMany({
    data: [rule("ack-test"), rule("ack-pause"), rule("ack-resume", false), rule("ack-remove")],
  });
  const options: Record<string, NamedOptions> = {
    help: {},
    "account link": {},
    "account unlink": {},
    "account status": {},
    "account transactions": {},
    "account settings": {},
    // Both answer at once: export attaches what is stored, delete only asks for a confirmation.
    "account export": {},
    "account delete": {},
    automation: {},
    search: { item },
    "listing view": { id: publicListing.id },
    "listing bids": { id: auction.id },
    "listing similar": { id: publicListing.id },
    history: { item },
    stall: { user: publicListing.seller.platform_id },
    "watchlist show": {},
    "watchlist add": { listing: auction.id },
    "watchlist remove": { listing: publicListing.id },
    buy: { listing: publicListing.id },
    bid: { listing: auction.id, max_price: "25.00" },
    "offer make": { listing: publicListing.id, price: "4.50" },
    "offer counter": { offer: offer.id, price: "9.50" },
    "offer list": {},
    "buyorder create": { item, max_price: "1.00", quantity: 1 },
    "buyorder list": {},
    "buyorder edit": { order: orderToEdit.id, max_price: "1.50" },
    "buyorder cancel": { order: orderToCancel.id },
    "buyorder matches": { listing: publicListing.id },
    "buyorder similar": { item },
    "buyorder guard": { order: orderToGuard.id, ceiling: "2.00", step: "0.10" },
    "sell list": { asset, price: "9.99" },
    "sell reprice": { listing: ownToReprice.id, price: "12.00" },
    "sell delist": { listings: ownToDelist.id },
    "sell mine": {},
    "sell guard": { listing: ownToReprice.id, floor: "5.00", step: "0.10" },
    "trades list": {},
    "trades view": { trade: tradeView.id },
    "trades accept": { trade: tradeAccept.id },
    "trades cancel": { trade: tradeCancel.id },
    "trades autoaccept": { enabled: false },
    "watch add": { name: `ack-add-${r}`, item, max_price: 10 },
    "watch list": {},
    "watch edit": { rule: "ack-test", max_price: 12 },
    "watch filters": { rule: "ack-test", min_profit: 0.5 },
    "watch remove": { name: "ack-remove" },
    "watch pause": { name: "ack-pause" },
    "watch resume": { name: "ack-resume" },
    "watch test": { name: "ack-test" },
    "watch arm": { rule: "ack-test", mode: "shadow" },
    "watch disarm": { rule: "ack-test" },
    "watch tier add": { name: `ack-tier-${r}`, seeds: "661, 670" },
    "watch tier list": {},
    "watch tier remove": { name: `ack-tier-${r}` },
    "portfolio summary": {},
    "portfolio export": {},
    "portfolio chart": {},
    "portfolio method": {},
    "alerts recent": {},
  };
  const samples: Sample[] = [];
  for (const path of leafCommands(world)) {
    const o = options[path];
    if (o === undefined) throw new Error(`no sample options for /${path}: add them to bench/ack.ts`);
    samples.push({ path, options: o, user: path === "account unlink" ? unlinker.discord : trader.discord });
  }
  return samples;
}

async function runMode(
  world: BenchWorld,
  rounds: Sample[][],
  latencyMs: number,
  spacingMs: number,
): Promise<AckMode> {
  world.sandbox.control.clearFaults();
  if (latencyMs > 0) world.sandbox.control.injectFault({ path: "**", kind: "latency", ms: latencyMs });
  const rnd = seededRandom(latencyMs + 1);
  const handles: { path: string; handle: InteractionHandle }[] = [];
  const results: Promise<{ path: string; ms: number | undefined; type: number | undefined }>[] = [];
  for (const round of rounds) {
    for (const s of shuffle([...round], rnd)) {
      const handle = world.double.slash(s.user, s.path, s.options);
      handles.push({ path: s.path, handle });
      results.push(
        handle.firstResponse(5_000).then(
          (r) => ({ path: s.path, ms: r.elapsedMs, type: r.type }),
          () => ({ path: s.path, ms: undefined, type: undefined }),
        ),
      );
      await sleep(spacingMs);
    }
  }
  const settled = await Promise.all(results);
  const answered = settled.filter((s): s is { path: string; ms: number; type: number } => s.ms !== undefined);
  const commands: AckMode["commands"] = {};
  const byPath = new Map<string, { ms: number[]; types: Set<number> }>();
  for (const s of answered) {
    const entry = byPath.get(s.path) ?? { ms: [], types: new Set<number>() };
    entry.ms.push(s.ms);
    entry.types.add(s.type);
    byPath.set(s.path, entry);
  }
  let slowest = { command: "", p99: 0 };
  for (const [path, { ms, types }] of byPath) {
    const d = distribution(ms);
    commands[path] = { n: d.n, p99: round(d.p99), max: round(d.max), types: [...types].sort() };
    if (d.p99 > slowest.p99) slowest = { command: path, p99: round(d.p99) };
  }
  return {
    marketLatencyMs: latencyMs,
    interactions: settled.length,
    unanswered: settled.length - answered.length,
    overall: distribution(answered.map((s) => s.ms)),
    commands,
    slowest,
  };
}

export async function runAck(postgres: BenchPostgres, opts: AckOptions): Promise<AckResult> {
  const modes = [0, opts.marketLatencyMs];
  const people = benchUsers(modes.length * opts.rounds * 2);
  const world = await startBenchWorld({ postgres, users: people, sandboxRateLimit: false });
  const client = createMarketClient({ baseUrl: world.sandbox.baseUrl, logger: logSink().logger });
  try {
    const plan: Sample[][][] = [];
    let k = 0;
    for (let m = 0; m < modes.length; m++) {
      const rounds: Sample[][] = [];
      for (let r = 0; r < opts.rounds; r++) {
        const trader = await traderOf(world, people[k++] as DoubleUser, `ack_${m}_${r}`);
        const unlinker = await traderOf(world, people[k++] as DoubleUser, `ack_unlink_${m}_${r}`);
        rounds.push(await roundSamples(world, client, trader, unlinker, r));
      }
      plan.push(rounds);
    }
    const result: AckMode[] = [];
    for (let m = 0; m < modes.length; m++) {
      const latency = modes[m] as number;
      progress(
        `ack: ${(plan[m] ?? []).flat().length} interactions, marketplace answering after ${latency} ms`,
      );
      result.push(await runMode(world, plan[m] ?? [], latency, opts.spacingMs));
    }
    return {
      rounds: opts.rounds,
      commands: plan[0]?.[0]?.length ?? 0,
      modes: result,
      problems: world.logs.summary(),
    };
  } finally {
    world.sandbox.control.clearFaults();
    await client.close();
    await world.stop();
  }
}
