// Delivery throughput: alerts queued in the outbox at once, drained to the local Discord by the real
// delivery worker, with Discord's per-channel send budget enforced and rate-limit headers sent.
import { listingAlertOf } from "../src/watch/listingAlertContent.ts";
import { writeAlerts, type NewAlert } from "../src/outbox/store.ts";
import { RuleFilters } from "../src/watch/ruleFilters.ts";
import { progress, round, seededRandom, waitUntil } from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import { benchUsers, insertUsers, noiseListing, previewListing, ruleSet, shuffle } from "./lib/population.ts";
import { startBenchWorld } from "./lib/world.ts";

export interface ThroughputOptions {
  alerts: number;
  users: number;
  /** Discord's per-channel budget: messages per window. */
  budget: { limit: number; windowMs: number };
}

export interface ThroughputResult {
  alerts: number;
  users: number;
  budget: { limit: number; windowMs: number };
  sent: number;
  /** First DM -> last DM. */
  alertsPerSecond: number;
  /** Outbox commit -> last DM. */
  drainMs: number;
  /** 429 answers the Discord double gave (sending despite remaining: 0 in the headers). */
  rateLimited429: number;
  /** Requests to Discord in all (DM channel opens included). */
  discordRequests: number;
  retried: number;
  failed: number;
  problems: Record<string, number>;
}

const DM_MESSAGES = /^\/channels\/\d+\/messages$/;

export async function runThroughput(
  postgres: BenchPostgres,
  opts: ThroughputOptions,
): Promise<ThroughputResult> {
  const rnd = seededRandom(13);
  const users = benchUsers(opts.users);
  let userIds: number[] = [];
  const world = await startBenchWorld({
    postgres,
    users,
    sendBudget: opts.budget,
    async seed(db) {
      userIds = await insertUsers(
        db,
        users.map((u) => u.id),
      );
    },
  });
  try {
    const set = ruleSet(10, 45);
    const filters = RuleFilters.parse({ max_price: 100_000 });
    const alerts: NewAlert[] = [];
    for (let i = 0; i < opts.alerts; i++) {
      const listing = { ...previewListing(noiseListing(set, rnd)), id: String(8_000_000_000 + i) };
      const userId = userIds[i % userIds.length] as number;
      alerts.push({
        userId,
        kind: "listing",
        subjectId: listing.id,
        version: String(listing.price),
        dedupeKey: `bench-throughput:${i}`,
        destination: "dm",
        alert: listingAlertOf(listing, { id: 1, name: "bench", filters }),
      });
    }
    // The order a busy feed produces: users interleaved at random, about alerts/users each.
    shuffle(alerts, rnd);
    let sent = 0;
    let first = 0;
    let last = 0;
    let limited = 0;
    let requests = 0;
    world.double.on("request", (req) => {
      requests += 1;
      if (req.status === 429) limited += 1;
      if (req.method === "POST" && DM_MESSAGES.test(req.path) && req.status === 200) {
        sent += 1;
        if (first === 0) first = req.at;
        if (process.env.BENCH_DEBUG === "1" && last !== 0 && req.at - last > 200)
          progress(`gap ${req.at - last} ms after ${sent - 1} sent`);
        last = req.at;
      }
    });
    progress(
      `throughput: ${opts.alerts} alerts to ${opts.users} users, ${opts.budget.limit} per channel per ${opts.budget.windowMs / 1000} s`,
    );
    await writeAlerts(world.db.prisma, alerts);
    const committed = Date.now();
    await waitUntil(() => sent >= opts.alerts, 600_000, `${opts.alerts} DMs (got ${sent})`, 20).catch(
      (err: unknown) => progress(String(err)),
    );
    const delivery = world.engine().stats().delivery;
    return {
      alerts: opts.alerts,
      users: opts.users,
      budget: opts.budget,
      sent,
      alertsPerSecond: round((sent - 1) / Math.max(0.001, (last - first) / 1000), 1),
      drainMs: last - committed,
      rateLimited429: limited,
      discordRequests: requests,
      retried: delivery.retried,
      failed: delivery.failed,
      problems: world.logs.summary(),
    };
  } finally {
    await world.stop();
  }
}
