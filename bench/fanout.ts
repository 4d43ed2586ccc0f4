// Fan-out: one new listing matching thousands of users' rules (some armed in shadow mode), fed
// to the real app and delivered to the local Discord, which enforces the global 50 requests/s
// and the per-channel budget. Measures order (armed outcomes first, then oldest rule first),
// DMs per second at Discord's ceiling, and 429s.
import { progress, round, seededRandom, waitUntil } from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import { benchUsers, insertRules, insertUsers } from "./lib/population.ts";
import { keepDmChannels, startBenchWorld } from "./lib/world.ts";

export interface FanOutOptions {
  /** Users, one rule each on the same item: every one matches the listing. */
  users: number;
  /** Rules among them armed in shadow mode (they DM what they would have bought). */
  armed: number;
  /** Discord's per-channel budget: messages per window. */
  budget: { limit: number; windowMs: number };
  seed?: number;
}

export interface FanOutResult {
  users: number;
  armed: number;
  budget: { limit: number; windowMs: number };
  delivered: number;
  /** First DM -> last DM. */
  dmsPerSecond: number;
  /** Listing created -> last DM. */
  drainMs: number;
  /** Listing created -> first DM. */
  firstDmMs: number;
  /** Armed outcome DMs that reached Discord after an ordinary one. */
  armedOutOfOrder: number;
  /** Ordinary DMs: how many places the farthest one landed from its rule's age rank. */
  ordinaryMaxDisplacement: number;
  /** Ordinary DMs that reached Discord right after a younger rule's one. */
  ordinaryInversions: number;
  rateLimited429: number;
  /** Requests to Discord in the fan-out, DM channel opens included. */
  discordRequests: number;
  dmChannelOpens: number;
  retried: number;
  failed: number;
  problems: Record<string, number>;
}

const ITEM = "Fanout Bench | Everyone Wants It (Pristine)";
const MESSAGES = /^\/channels\/(\d+)\/messages$/;

export async function runFanOut(postgres: BenchPostgres, opts: FanOutOptions): Promise<FanOutResult> {
  const rnd = seededRandom(opts.seed ?? 17);
  const users = benchUsers(opts.users);
  let userIds: number[] = [];
  progress(`fan-out: seeding ${opts.users} users and rules on one item, ${opts.armed} armed in shadow mode`);
  const world = await startBenchWorld({
    postgres,
    users,
    sendBudget: opts.budget,
    async seed(db) {
      userIds = await insertUsers(
        db,
        users.map((u) => u.id),
      );
      // One rule per user, oldest first in user order: rule age rank = user index.
      await insertRules(
        db,
        userIds.map((userId) => ({ userId, filters: { item: ITEM, max_price: 1_000_000 } })),
      );
    },
  });
  try {
    // Users the bot has DMed before: their DM channels exist and are kept (users.dm_channel_id).
    const channelOf = await keepDmChannels(
      world,
      users.map((u) => u.id),
    );
    const rankOfChannel = new Map(channelOf.map((c, i) => [c, i]));
    const armedRanks = new Set<number>();
    while (armedRanks.size < opts.armed) armedRanks.add(Math.floor(rnd() * opts.users));
    await world.db.pool.query(
      `UPDATE watch_rules SET arm_mode = 'shadow', arm_max_buys = 100, arm_buys = 0, armed_at = now(), updated_at = now()
        WHERE user_id = ANY($1::int[])`,
      [[...armedRanks].map((r) => userIds[r])],
    );
    const engine = world.engine();
    await waitUntil(
      () =>
        engine.stats().rules === opts.users &&
        engine.ruleIndex.armedCount === opts.armed &&
        engine.stats().feed.mark !== undefined,
      120_000,
      "the engine to load every rule, the armed ones, and set its feed mark",
    );

    const arrivals: Array<{ rank: number; at: number }> = [];
    let limited = 0;
    let requests = 0;
    let opens = 0;
    world.double.on("request", (req) => {
      requests += 1;
      if (req.status === 429) limited += 1;
      if (req.method === "POST" && req.path === "/users/@me/channels") opens += 1;
      const channel = req.method === "POST" && req.status === 200 ? MESSAGES.exec(req.path)?.[1] : undefined;
      const rank = channel === undefined ? undefined : rankOfChannel.get(channel);
      if (rank !== undefined) arrivals.push({ rank, at: req.at });
    });
    progress(`fan-out: one listing matching ${opts.users} rules`);
    const created = Date.now();
    world.sandbox.control.createListing({ market_hash_name: ITEM, price: 1_500, type: "buy_now" });
    await waitUntil(
      () => arrivals.length >= opts.users,
      600_000,
      `${opts.users} DMs (got ${arrivals.length})`,
      20,
    ).catch((err: unknown) => progress(String(err)));

    const first = arrivals[0]?.at ?? created;
    const last = arrivals[arrivals.length - 1]?.at ?? created;
    const firstOrdinary = arrivals.findIndex((a) => !armedRanks.has(a.rank));
    const armedOutOfOrder =
      firstOrdinary < 0 ? 0 : arrivals.slice(firstOrdinary).filter((a) => armedRanks.has(a.rank)).length;
    const ordinary = arrivals.filter((a) => !armedRanks.has(a.rank));
    const expectedOrder = [...ordinary].sort((a, b) => a.rank - b.rank);
    const place = new Map(expectedOrder.map((a, i) => [a.rank, i]));
    const delivery = world.engine().stats().delivery;
    return {
      users: opts.users,
      armed: opts.armed,
      budget: opts.budget,
      delivered: arrivals.length,
      dmsPerSecond: round((arrivals.length - 1) / Math.max(0.001, (last - first) / 1000), 1),
      drainMs: last - created,
      firstDmMs: first - created,
      armedOutOfOrder,
      ordinaryMaxDisplacement: Math.max(0, ...ordinary.map((a, i) => Math.abs(i - (place.get(a.rank) ?? i)))),
      ordinaryInversions: ordinary.filter((a, i) => i > 0 && a.rank < (ordinary[i - 1]?.rank ?? 0)).length,
      rateLimited429: limited,
      discordRequests: requests,
      dmChannelOpens: opens,
      retried: delivery.retried,
      failed: delivery.failed,
      problems: world.logs.summary(),
    };
  } finally {
    await world.stop();
  }
}
