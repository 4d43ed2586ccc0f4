// Marketplace calls per feed cycle as the rule count grows (one shared feed), beside the naive
// design that runs one search per rule per cycle: counted, and a sample of it timed against the sandbox.
import { searchQueryFor } from "../src/watch/rules.ts";
import { createMarketClient, type MarketCallEvent } from "../src/market/client.ts";
import { ROOMY_RATE_LIMIT } from "../src/sandbox/rateLimit.ts";
import { logSink, progress, round, seededRandom, sleep, waitUntil } from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import {
  assignOwners,
  benchUsers,
  insertRules,
  insertUsers,
  noiseListing,
  ruleSet,
} from "./lib/population.ts";
import { startBenchWorld } from "./lib/world.ts";

export interface EconomyOptions {
  ruleCounts: readonly number[];
  users: number;
  intervalMs: number;
  /** Feed cycles observed per rule count. */
  cycles: number;
  /** Naive searches timed against the sandbox. */
  naiveSample: number;
  naiveConcurrency: number;
}

export interface EconomyRow {
  rules: number;
  cycles: number;
  /** Every marketplace request the app made (client metrics hook), per feed cycle. */
  callsPerCycle: number;
  /** GET /listings answered by the sandbox (its own count), per feed cycle. */
  listingsCallsPerCycle: number;
  /** The naive design: one search per rule per cycle. */
  naiveCallsPerCycle: number;
}

export interface EconomyResult {
  intervalMs: number;
  users: number;
  rows: EconomyRow[];
  naive: {
    sample: number;
    concurrency: number;
    wallMs: number;
    /** Wall time per search at that concurrency. */
    msPerSearch: number;
    /** One naive cycle at the largest rule count, from the sample's pace (ignoring rate limits). */
    cycleMsAtMax: number;
    /** The sandbox's default budget (per key and endpoint) allows one naive cycle this often. */
    budget: { limit: number; windowMs: number };
    budgetPeriodMsAtMax: number;
  };
  problems: Record<string, number>;
}

export async function runEconomy(postgres: BenchPostgres, opts: EconomyOptions): Promise<EconomyResult> {
  const rnd = seededRandom(11);
  const users = benchUsers(opts.users);
  const max = Math.max(...opts.ruleCounts);
  const set = ruleSet(max, 43);
  const calls: MarketCallEvent[] = [];
  let userIds: number[] = [];
  const world = await startBenchWorld({
    postgres,
    users,
    env: { POLL_INTERVAL_MS: String(opts.intervalMs) },
    overrides: { marketMetrics: { onCall: (e) => calls.push(e) } },
    async seed(db) {
      userIds = await insertUsers(
        db,
        users.map((u) => u.id),
      );
    },
  });
  const rows: EconomyRow[] = [];
  try {
    const engine = world.engine();
    let inserted = 0;
    for (const count of [...opts.ruleCounts].sort((a, b) => a - b)) {
      const owners = assignOwners(count - inserted, userIds, rnd);
      await insertRules(
        world.db,
        set.filters.slice(inserted, count).map((filters, i) => ({ userId: owners[i] as number, filters })),
      );
      inserted = count;
      // The engine picks new rules up from the database before its next cycle.
      await waitUntil(() => engine.stats().rules === count, 60_000, `the engine to hold ${count} rules`);
      await waitUntil(() => engine.stats().feed.mark !== undefined, 60_000, "the first feed cycle");
      progress(`economy: ${count} rules, ${opts.cycles} feed cycles`);
      // Count between cycle ends, so no cycle is half in and half out of the window.
      const cycleEnd = async () => {
        const last = engine.stats().feed.lastCycleAt?.getTime();
        await waitUntil(
          () => (engine.stats().feed.lastCycleAt?.getTime() ?? last) !== last,
          opts.intervalMs * 10 + 10_000,
          "a feed cycle to end",
          2,
        );
      };
      await cycleEnd();
      calls.length = 0;
      world.sandbox.control.resetStats();
      const before = engine.stats().feed.cycles;
      // Listings keep arriving, as they do live, so cycles have work to do.
      let more = true;
      const arrivals = (async () => {
        while (more) {
          world.sandbox.control.createListing(noiseListing(set, rnd));
          await sleep(opts.intervalMs * rnd());
        }
      })();
      for (let i = 0; i < opts.cycles; i++) await cycleEnd();
      const callCount = calls.length;
      const cycles = engine.stats().feed.cycles - before;
      const listingsCalls = world.sandbox.control.stats().routes["GET /listings"]?.total ?? 0;
      more = false;
      await arrivals;
      rows.push({
        rules: count,
        cycles,
        callsPerCycle: round(callCount / cycles, 2),
        listingsCallsPerCycle: round(listingsCalls / cycles, 2),
        naiveCallsPerCycle: count,
      });
    }

    // The naive design's cost, sampled: one search per rule, at the client's default parallelism.
    progress(`economy: timing ${opts.naiveSample} per-rule searches (the naive design)`);
    const client = createMarketClient({
      baseUrl: world.sandbox.baseUrl,
      logger: logSink().logger,
      connections: opts.naiveConcurrency,
    });
    try {
      const api = client.forKey(world.sandbox.users[2]?.apiKey);
      const queue = set.filters.slice(0, opts.naiveSample);
      const started = performance.now();
      await Promise.all(
        Array.from({ length: opts.naiveConcurrency }, async () => {
          for (let f = queue.shift(); f !== undefined; f = queue.shift())
            await api.searchListings(searchQueryFor(f));
        }),
      );
      const wallMs = performance.now() - started;
      const msPerSearch = wallMs / opts.naiveSample;
      const budget = { ...ROOMY_RATE_LIMIT };
      return {
        intervalMs: opts.intervalMs,
        users: opts.users,
        rows,
        naive: {
          sample: opts.naiveSample,
          concurrency: opts.naiveConcurrency,
          wallMs: round(wallMs),
          msPerSearch: round(msPerSearch, 2),
          cycleMsAtMax: round(msPerSearch * max),
          budget,
          budgetPeriodMsAtMax: round((max / budget.limit) * budget.windowMs),
        },
        problems: world.logs.summary(),
      };
    } finally {
      await client.close();
    }
  } finally {
    await world.stop();
  }
}
