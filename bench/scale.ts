// Ten thousand traders on one address: every linked user's polls, the shared feed and people's
// commands share one address budget (the sandbox keeps it, as the live service does: no header,
// only 429s). Measured: command ack and answer, feed latency against what the budget allows,
// trade alerts against their deadlines, and 429s (there should be none).
import type { RuleFilters } from "../src/watch/ruleFilters.ts";
import { Listing } from "../src/market/schemas.ts";
import { ACCEPT_WINDOW_MS } from "../src/sandbox/trades.ts";
import type { DoubleUser } from "../src/playground/discord/index.ts";
import { distribution, progress, seededRandom, sleep, waitUntil, type Distribution } from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import { benchUsers, insertRules } from "./lib/population.ts";
import { startBenchWorld, type BenchWorld } from "./lib/world.ts";

export interface ScaleOptions {
  users: number;
  budget: { limit: number; windowMs: number };
  durationMs: number;
  /** Sales that wait on their seller, made during the run. */
  trades: number;
  /** Auctions with a standing bid of a linked user. */
  bids: number;
  /** Listings watched by a rule, for the feed's latency. */
  feedListings: number;
  /** Commands run by users during the run. */
  commands: number;
  /** After the run, how long to wait for the last trade alerts. */
  tradeWaitMs: number;
  seed?: number;
}

export interface ScaleResult {
  users: number;
  budget: { limit: number; windowMs: number };
  durationMs: number;
  /** The feed's interval: its share of the budget (25%). */
  feedIntervalMs: number;
  commandAck: Distribution;
  commandAnswer: Distribution;
  unanswered: number;
  /** Listing created -> its alert committed. */
  feedDetection: Distribution;
  feedMissing: number;
  trades: { made: number; alerted: number; beforeDeadline: number; saleToAlert: Distribution };
  /** 429s the sandbox answered, all routes. */
  refused429: number;
  requests: number;
  scheduler: { sent: Record<string, number>; source: string; addressRefusals: number };
  /** The feed during the run: cycles, failures, gaps (a listing given up would be one). */
  feed: { cycles: number; failures: number; gaps: number; pages: number };
  /** Each watched listing's detection, in the order they were created (for diagnosis). */
  detectionTimeline: { atS: number; ms: number | null }[];
  problems: Record<string, number>;
}

const WATCHED = (i: number) => `Scale Bench | Watched ${i} (Pristine)`;

/** Links every user as /account link would: sandbox accounts, then sealed keys in bulk. */
async function linkAll(
  world: BenchWorld,
  people: readonly DoubleUser[],
): Promise<{ dbId: number; platformId: string }[]> {
  const vault = world.app.vault;
  const accounts = people.map((p, i) =>
    world.sandbox.control.createUser({ name: `trader_${i}`, balance: 10_000_000 }),
  );
  const { rows } = await world.db.pool.query<{ id: number; discord_id: string }>(
    `INSERT INTO users (discord_id, status, updated_at) SELECT d, 'unlinked', now() FROM unnest($1::text[]) AS d
     RETURNING id, discord_id`,
    [people.map((p) => p.id)],
  );
  const idOf = new Map(rows.map((r) => [r.discord_id, r.id]));
  const ids = people.map((p) => idOf.get(p.id) as number);
  await world.db.pool.query(
    `UPDATE users u SET encrypted_key = t.k, key_id = $5, key_fingerprint = t.f, platform_id = t.p,
            platform_name = t.n, status = 'active', linked_at = now()
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $6::text[]) AS t(id, k, f, p, n)
      WHERE u.id = t.id`,
    [
      ids,
      accounts.map((a, i) => vault.encrypt(a.apiKey, ids[i] as number)),
      accounts.map((a) => vault.fingerprint(a.apiKey)),
      accounts.map((a) => a.platformId),
      vault.keyId,
      accounts.map((a) => a.name),
    ],
  );
  return ids.map((dbId, i) => ({ dbId, platformId: (accounts[i] as { platformId: string }).platformId }));
}

export async function runScale(postgres: BenchPostgres, opts: ScaleOptions): Promise<ScaleResult> {
  const rnd = seededRandom(opts.seed ?? 5);
  const people = benchUsers(opts.users);
  const feedIntervalMs = Math.ceil(opts.budget.windowMs / (opts.budget.limit * 0.25));
  progress(
    `scale: ${opts.users} linked users, budget ${opts.budget.limit} per ${opts.budget.windowMs / 1000} s`,
  );
  const world = await startBenchWorld({
    postgres,
    users: people,
    sandboxRateLimit: false,
    sandboxAddressRateLimit: opts.budget,
    env: {
      POLL_INTERVAL_MS: String(feedIntervalMs),
      MARKET_ADDRESS_BUDGET: `${opts.budget.limit}/${opts.budget.windowMs}ms`,
    },
  });
  try {
    const linked = await linkAll(world, people);
    // Watchers: one rule each for the first feedListings users, on an item of their own.
    await insertRules(
      world.db,
      Array.from({ length: opts.feedListings }, (_, i) => ({
        userId: (linked[i] as { dbId: number }).dbId,
        filters: { item: WATCHED(i) } as RuleFilters,
      })),
    );
    // Standing bids: auctions far from their end, each with a linked bidder, tracked with the
    // auction's end as /bid stores it (a bid with no known end counts as ending soon: its bidder
    // would be read as often as a seller with a sale waiting).
    const bidders = linked.slice(opts.users - opts.bids);
    for (const b of bidders) {
      const auction = world.sandbox.control.createListing({
        type: "auction",
        reserve_price: 500,
        auction_duration_ms: 6 * 3_600_000,
      });
      await world.db.pool.query(
        `INSERT INTO tracked_bids (user_id, listing_id, max_price_cents, status, expires_at, updated_at)
         VALUES ($1, $2, 2000, 'active', $3, now())`,
        [b.dbId, auction.id, auction.auction_details?.expires_at ?? null],
      );
    }
    const engine = world.engine();
    await waitUntil(() => engine.stats().feed.mark !== undefined, 60_000, "the feed's first mark");

    // Sellers list now; their sales come at random times during the run.
    const sellers = linked.slice(opts.feedListings, opts.feedListings + opts.trades);
    const sellerListings = sellers.map((s) =>
      world.sandbox.control.createListing({ sellerPlatformId: s.platformId, price: 2_000 }),
    );
    const events: { at: number; run: () => Promise<void> }[] = [];
    const sales: { tradeId: string; sellerDbId: number; soldAt: number }[] = [];
    const created = new Map<string, number>();
    const answers: Promise<{ ack: number | undefined; answer: number | undefined }>[] = [];
    sellerListings.forEach((l, i) =>
      events.push({
        at: 5_000 + rnd() * (opts.durationMs * 0.6),
        run: async () => {
          const t = world.sandbox.control.sellToBuyer(l.id);
          sales.push({
            tradeId: t.id,
            sellerDbId: (sellers[i] as { dbId: number }).dbId,
            soldAt: Date.now(),
          });
        },
      }),
    );
    for (let i = 0; i < opts.feedListings; i++) {
      events.push({
        at: rnd() * opts.durationMs * 0.8,
        run: async () => {
          const json = world.sandbox.control.createListing({ market_hash_name: WATCHED(i), price: 1_000 });
          created.set(Listing.parse(json).id, Date.parse(json.created_at));
        },
      });
    }
    for (let i = 0; i < opts.commands; i++) {
      const user = people[Math.floor(rnd() * people.length)] as DoubleUser;
      events.push({
        at: rnd() * opts.durationMs,
        run: async () => {
          const started = Date.now();
          const handle = world.double.slash(user, "search", {
            item: WATCHED(i % Math.max(1, opts.feedListings)),
          });
          answers.push(
            Promise.all([
              handle.firstResponse(10_000).then(
                (r) => r.elapsedMs,
                () => undefined,
              ),
              handle.finalMessage(20_000).then(
                () => Date.now() - started,
                () => undefined,
              ),
            ]).then(([ack, answer]) => ({ ack, answer })),
          );
        },
      });
    }
    events.sort((a, b) => a.at - b.at);
    const start = Date.now();
    progress(`scale: running ${opts.durationMs / 1000} s (${events.length} events)`);
    for (const e of events) {
      const wait = start + e.at - Date.now();
      if (wait > 0) await sleep(wait);
      await e.run();
    }
    const rest = start + opts.durationMs - Date.now();
    if (rest > 0) await sleep(rest);
    const settled = await Promise.all(answers);
    // Sales wait on sellers read by need: give the last ones the time their period allows.
    const alertedTrades = async () => {
      const { rows } = await world.db.pool.query<{ n: string }>(
        "SELECT count(DISTINCT subject_id) AS n FROM alert_log WHERE kind = 'trade'",
      );
      return Number(rows[0]?.n ?? 0) >= sales.length;
    };
    await waitUntil(alertedTrades, opts.tradeWaitMs, "every sale's trade alert", 500).catch((err: unknown) =>
      progress(String(err)),
    );

    const { rows: alerts } = await world.db.pool.query<{
      subject_id: string;
      kind: string;
      created_at: Date;
    }>("SELECT subject_id, kind, created_at FROM alert_log WHERE kind IN ('listing', 'trade')");
    const firstAlert = new Map<string, number>();
    for (const a of alerts) {
      const key = `${a.kind}:${a.subject_id}`;
      const t = a.created_at.getTime();
      if (!firstAlert.has(key) || t < (firstAlert.get(key) as number)) firstAlert.set(key, t);
    }
    const detection: number[] = [];
    const detectionTimeline: ScaleResult["detectionTimeline"] = [];
    for (const [id, at] of created) {
      const t = firstAlert.get(`listing:${id}`);
      if (t !== undefined) detection.push(t - at);
      detectionTimeline.push({
        atS: Math.round((at - start) / 100) / 10,
        ms: t === undefined ? null : t - at,
      });
    }
    const feedStats = engine.stats().feed;
    const saleToAlert: number[] = [];
    let beforeDeadline = 0;
    for (const s of sales) {
      const t = firstAlert.get(`trade:${s.tradeId}`);
      if (t === undefined) continue;
      saleToAlert.push(t - s.soldAt);
      if (t < s.soldAt + ACCEPT_WINDOW_MS) beforeDeadline += 1;
    }
    const stats = world.sandbox.control.stats();
    let refused429 = 0;
    for (const r of Object.values(stats.routes)) refused429 += r.byStatus["429"] ?? 0;
    const sched = world.app.scheduler.stats();
    const acks = settled.flatMap((s) => (s.ack === undefined ? [] : [s.ack]));
    const answered = settled.flatMap((s) => (s.answer === undefined ? [] : [s.answer]));
    return {
      users: opts.users,
      budget: opts.budget,
      durationMs: opts.durationMs,
      feedIntervalMs,
      commandAck: distribution(acks),
      commandAnswer: distribution(answered),
      unanswered: settled.length - answered.length,
      feedDetection: distribution(detection),
      feedMissing: created.size - detection.length,
      trades: {
        made: sales.length,
        alerted: saleToAlert.length,
        beforeDeadline,
        saleToAlert: distribution(saleToAlert),
      },
      refused429,
      requests: stats.total,
      scheduler: { sent: sched.sent, source: sched.source, addressRefusals: sched.addressRefusals },
      feed: {
        cycles: feedStats.cycles,
        failures: feedStats.failures,
        gaps: feedStats.gaps,
        pages: feedStats.pagesFetched,
      },
      detectionTimeline,
      problems: world.logs.summary(),
    };
  } finally {
    await world.stop();
  }
}
