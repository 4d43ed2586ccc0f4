// Alert latency end to end: a listing appears in the sandbox marketplace -> the real app's feed poller,
// matcher index, outbox and delivery -> the DM request arrives at the local Discord.
import { Listing } from "../src/market/schemas.ts";
import type { RecordedRequest } from "../src/playground/discord/index.ts";
import type { ListingTemplate } from "../src/sandbox/index.ts";
import {
  distribution,
  progress,
  round,
  seededRandom,
  sleep,
  waitUntil,
  type Distribution,
} from "./lib/common.ts";
import type { BenchDatabase, BenchPostgres } from "./lib/database.ts";
import {
  assignOwners,
  benchUsers,
  expectedMatcher,
  insertRules,
  insertUsers,
  listingForRule,
  noiseListing,
  previewListing,
  ruleSet,
  shuffle,
  type StoredRule,
} from "./lib/population.ts";
import { pollClock, sleepUntil, stratifiedPhases } from "./lib/arrivals.ts";
import { keepDmChannels, startBenchWorld } from "./lib/world.ts";

export interface LatencyOptions {
  intervalMs: number;
  users: number;
  rules: number;
  /** Listings built to match at least one rule. */
  matching: number;
  /** Listings that match nothing, mixed in (most of a real feed alerts nobody). */
  noise: number;
  /** The listings arrive at random times over this long. */
  durationMs: number;
  seed?: number;
}

export interface LatencyResult {
  intervalMs: number;
  users: number;
  rules: number;
  listings: { matching: number; noise: number; durationMs: number };
  /** The sandbox's GET /listings budget for the feed: exactly what polling every interval needs. */
  feedBudget: { limit: number; windowMs: number };
  /** Feed cycles the app ran while listings arrived, and their mean spacing. */
  /** measuredPeriodMs: the poll period the last arrival phases were spread over, from the polls themselves. */
  feed: { cycles: number; meanPeriodMs: number; measuredPeriodMs: number; pagesPerCycle: number };
  /** channelOpens: POST /users/@me/channels during the run (DM channels are kept, so none). */
  dms: {
    expected: number;
    received: number;
    missing: number;
    unexpected: number;
    failedRequests: number;
    channelOpens: number;
  };
  /** Listings with fewer DMs than rules they match (at most 10): which rules alerted, for diagnosis. */
  shortListings: { listingId: string; expectedRules: number[]; alertedRules: number[]; dms: number }[];
  /** Listing created -> its DM request arrived at Discord, every DM. */
  perDm: Distribution;
  /** Listing created -> the first DM about it. */
  perListingFirst: Distribution;
  /** How much later than planned the matching listings were created (a busy event loop), ms. */
  placedLate: Distribution;
  /** Listing created -> its alert and outbox rows committed (feed + match + write). */
  detection: Distribution;
  /**
   * Detection split at the first feed page answered after the listing's creation: the wait for
   * that poll, then page answered -> alert row written (read, decode, match, confirm, insert).
   */
  detectionSplit: { pollWait: Distribution; pageToRow: Distribution };
  /** Outbox row committed -> DM request at Discord (delivery wake-up + send). */
  delivery: Distribution;
  /** CPU the whole bench process (app, sandbox and Discord double) used per wall second while listings arrived. */
  cpuCoresUsed: number;
  problems: Record<string, number>;
}

/** A listing alerts at most this many watchers in this scenario (see runLatency). */
const maxDmsPerListing = 4;
const DM_MESSAGES = /^\/channels\/(\d+)\/messages$/;
const LISTING_FOOTER = /Listing (\d+)/;

function listingIdOf(req: RecordedRequest): string | undefined {
  const body = req.body as { embeds?: { footer?: { text?: string } }[] } | undefined;
  const footer = body?.embeds?.[0]?.footer?.text;
  return footer === undefined ? undefined : LISTING_FOOTER.exec(footer)?.[1];
}

async function explainShort(
  db: BenchDatabase,
  short: readonly { listingId: string; expectedRules: number[]; dms: number }[],
): Promise<LatencyResult["shortListings"]> {
  const out: LatencyResult["shortListings"] = [];
  for (const s of short) {
    const { rows } = await db.pool.query<{ rule_id: number }>(
      "SELECT rule_id FROM alert_log WHERE kind = 'listing' AND subject_id = $1 ORDER BY rule_id",
      [s.listingId],
    );
    out.push({ ...s, alertedRules: rows.map((r) => r.rule_id) });
  }
  return out;
}

export async function runLatency(postgres: BenchPostgres, opts: LatencyOptions): Promise<LatencyResult> {
  const rnd = seededRandom(opts.seed ?? 7);
  const users = benchUsers(opts.users);
  const set = ruleSet(opts.rules);
  let stored: StoredRule[] = [];
  // The feed's budget is what one request per interval needs (+1 kept in reserve, +1 for the first
  // cycle), so the poller paces itself at POLL_INTERVAL_MS instead of racing ahead on a generous one.
  const windowMs = 60_000;
  const feedBudget = { limit: Math.ceil(windowMs / opts.intervalMs) + 2, windowMs };

  progress(`latency @${opts.intervalMs} ms: seeding ${opts.users} users and ${opts.rules} rules`);
  const world = await startBenchWorld({
    postgres,
    users,
    sandboxRateLimit: feedBudget,
    env: { POLL_INTERVAL_MS: String(opts.intervalMs) },
    async seed(db) {
      const ids = await insertUsers(
        db,
        users.map((u) => u.id),
      );
      const owners = assignOwners(set.filters.length, ids, rnd);
      stored = await insertRules(
        db,
        set.filters.map((filters, i) => ({ userId: owners[i] as number, filters })),
      );
    },
  });
  try {
    // Users who saved their rules through the bot: it opened and kept their DM channels then
    // (ADR 039), so an alert is one request to Discord, as for every user after their first DM.
    await keepDmChannels(
      world,
      users.map((u) => u.id),
    );
    const engine = world.engine();
    await waitUntil(
      () => engine.stats().rules === stored.length && engine.stats().feed.mark !== undefined,
      120_000,
      "the engine to load every rule and set its feed mark",
    );

    // Which rules get a listing: distinct item rules, chosen at random, whose listing alerts at most
    // maxDmsPerListing watchers: this measures latency, not a burst that queues behind Discord's
    // 50 requests/s (the throughput scenario measures that).
    // One listing per item name: a listing sets its name's reference price in the sandbox, and a
    // second one moving it before the feed reads the first would change what the first matches.
    const expectedOf = expectedMatcher(stored);
    // One DM per listing and user, naming every rule of theirs that matched (ADR 035).
    const ownerOf = new Map(stored.map((r) => [r.id, r.userId]));
    const dmsOf = (listing: Listing) => new Set(expectedOf(listing).map((id) => ownerOf.get(id))).size;
    const templates: { template: ListingTemplate; matching: boolean }[] = [];
    const names = new Set<string>();
    const fresh = (t: ListingTemplate) => t.market_hash_name !== undefined && !names.has(t.market_hash_name);
    const order = shuffle(
      stored.map((_, i) => i),
      rnd,
    );
    for (const i of order) {
      if (templates.length >= opts.matching) break;
      const t = listingForRule(set, (stored[i] as StoredRule).filters, rnd);
      if (t === undefined || !fresh(t)) continue;
      const n = expectedOf(previewListing(t)).length;
      if (n < 1 || n > maxDmsPerListing) continue;
      templates.push({ template: t, matching: true });
      names.add(t.market_hash_name as string);
    }
    let noise = 0;
    for (let attempt = 0; noise < opts.noise && attempt < opts.noise * 10; attempt++) {
      const t = noiseListing(set, rnd);
      if (!fresh(t) || expectedOf(previewListing(t)).length > 0) continue;
      templates.push({ template: t, matching: false });
      names.add(t.market_hash_name as string);
      noise += 1;
    }
    // Arrival times. The poll wait of a DM depends on its listing's phase against the feed's
    // polls, and with independent arrival times the median poll wait of a quick run (60 listings)
    // spreads by 35-40 ms from run to run (one standard deviation, simulated over poll phases),
    // ~21 ms in a full run even stratified by time: enough on its own to move the p50 across its
    // target. So each matching listing is placed at a phase after one of the feed's polls, as the
    // sandbox answers them: the phases are spread evenly over the poll period, weighted by the
    // DMs each listing brings (stratifiedPhases), each uniformly random within its span, and the
    // listings are dealt to the run's periods in random order. Each arrival is still uniform
    // against the polls; together they cover the period evenly, and the spread of the median
    // poll wait falls to ~9 ms. The period is measured from the polls themselves (the feed paces
    // itself from the rate limit's headers, a few ms off POLL_INTERVAL_MS). A listing created
    // later than planned (a busy event loop) is timed from its actual creation. The other
    // listings arrive one at a random time in each of equal slices of the run.
    const matchingTemplates = shuffle(
      templates.filter((t) => t.matching),
      rnd,
    );
    const phases = stratifiedPhases(
      matchingTemplates.map((t) => Math.max(1, dmsOf(previewListing(t.template)))),
    );
    const periods = Math.max(1, Math.round(opts.durationMs / opts.intervalMs));
    const byPeriod: number[][] = Array.from({ length: periods }, () => []);
    shuffle(
      matchingTemplates.map((_, i) => i),
      rnd,
    ).forEach((i, k) => byPeriod[Math.floor((k * periods) / matchingTemplates.length)]?.push(i));
    for (const group of byPeriod) group.sort((x, y) => (phases[x] as number) - (phases[y] as number));
    const others = shuffle(
      templates.filter((t) => !t.matching),
      rnd,
    );
    const otherOffsets = others.map((_, i) => ((i + rnd()) * opts.durationMs) / others.length);

    const dms = new Map<string, number[]>();
    const dmRequests: { listingId: string; channelId: string; at: number }[] = [];
    let failedRequests = 0;
    let unexpected = 0;
    let dmChannelOpens = 0;
    world.double.on("request", (req) => {
      if (req.method !== "POST") return;
      if (req.path === "/users/@me/channels") dmChannelOpens += 1;
      const m = DM_MESSAGES.exec(req.path);
      if (!m) return;
      if (req.status !== 200) {
        failedRequests += 1;
        return;
      }
      const listingId = listingIdOf(req);
      if (listingId === undefined) {
        unexpected += 1;
        return;
      }
      dmRequests.push({ listingId, channelId: m[1] as string, at: req.at });
      const list = dms.get(listingId) ?? [];
      list.push(req.at);
      dms.set(listingId, list);
    });

    const created = new Map<string, { at: number; listing: Listing }>();
    let expected = 0;
    const cyclesBefore = engine.stats().feed.cycles;
    const pagesBefore = engine.stats().feed.pagesFetched;
    const cpuBefore = process.cpuUsage();
    const start = Date.now();
    progress(
      `latency @${opts.intervalMs} ms: ${templates.length} listings over ${opts.durationMs / 1000} s, ` +
        `${matchingTemplates.length} of them at stratified phases after the feed's polls`,
    );
    const create = (template: ListingTemplate) => {
      const json = world.sandbox.control.createListing(template);
      const listing = Listing.parse(json);
      created.set(listing.id, { at: Date.parse(json.created_at), listing });
    };
    const polls = pollClock(world.sandbox.control);
    /** Every feed page answered while listings arrive: splits detection into the wait and the rest. */
    const answers: number[] = [];
    const stopAnswers = world.sandbox.control.onAnswer((route, status) => {
      if (route === "GET /listings" && status === 200) answers.push(Date.now());
    });
    /** How much later than planned each placed listing was created (a busy event loop). */
    const late: number[] = [];
    let periodMs = opts.intervalMs;
    const placed = async () => {
      for (const group of byPeriod) {
        const polled = await polls.next();
        periodMs = polls.periodMs(opts.intervalMs);
        for (const i of group) {
          const planned = polled + (phases[i] as number) * periodMs;
          await sleepUntil(planned);
          late.push(Date.now() - planned);
          create((matchingTemplates[i] as (typeof templates)[number]).template);
        }
      }
    };
    const spread = async () => {
      for (let i = 0; i < others.length; i++) {
        await sleepUntil(start + (otherOffsets[i] as number));
        create((others[i] as (typeof templates)[number]).template);
      }
    };
    try {
      await Promise.all([placed(), spread()]);
    } finally {
      polls.stop();
    }
    const arrivalWallMs = Date.now() - start;
    const cpu = process.cpuUsage(cpuBefore);
    const cycles = engine.stats().feed.cycles - cyclesBefore;
    const pages = engine.stats().feed.pagesFetched - pagesBefore;
    let matchingCreated = 0;
    for (const { listing } of created.values()) {
      const n = dmsOf(listing);
      expected += n;
      if (n > 0) matchingCreated += 1;
    }
    await waitUntil(
      () => dmRequests.length >= expected,
      Math.max(20_000, opts.intervalMs * 20),
      `${expected} DMs (got ${dmRequests.length})`,
      50,
    ).catch((err: unknown) => progress(String(err)));
    // Late extras (duplicates would show up here).
    await sleep(Math.min(2000, opts.intervalMs * 2));

    const perDm: number[] = [];
    const firsts: number[] = [];
    let missing = 0;
    const short: { listingId: string; expectedRules: number[]; dms: number }[] = [];
    for (const [id, { at, listing }] of created) {
      const arrivals = (dms.get(id) ?? []).sort((a, b) => a - b);
      const wanted = expectedOf(listing);
      const want = dmsOf(listing);
      missing += Math.max(0, want - arrivals.length);
      if (arrivals.length < want && short.length < 10)
        short.push({ listingId: id, expectedRules: wanted, dms: arrivals.length });
      for (const t of arrivals) perDm.push(t - at);
      if (arrivals.length > 0) firsts.push((arrivals[0] as number) - at);
    }
    for (const id of dms.keys()) if (!created.has(id)) unexpected += 1;

    // Split each DM's time at the commit of its outbox row: detection (feed) | delivery (outbox -> Discord).
    const { rows } = await world.db.pool.query<{ subject_id: string; discord_id: string; created_at: Date }>(
      `SELECT a.subject_id, u.discord_id, o.created_at
         FROM outbox o JOIN alert_log a ON a.id = o.alert_id JOIN users u ON u.id = o.user_id
        WHERE a.kind = 'listing' ORDER BY o.created_at`,
    );
    const userOfChannel = new Map<string, string>();
    for (const u of users) {
      const channel = world.double.dmChannelOf(u.id);
      if (channel !== undefined) userOfChannel.set(channel, u.id);
    }
    stopAnswers();
    const rowsByKey = new Map<string, number[]>();
    const detection: number[] = [];
    const pollWait: number[] = [];
    const pageToRow: number[] = [];
    for (const r of rows) {
      const listing = created.get(r.subject_id);
      if (!listing) continue;
      detection.push(r.created_at.getTime() - listing.at);
      // The first page answered after the listing was created (the one that can carry it).
      const answeredAt = answers.find((a) => a >= listing.at);
      if (answeredAt !== undefined && answeredAt <= r.created_at.getTime()) {
        pollWait.push(answeredAt - listing.at);
        pageToRow.push(r.created_at.getTime() - answeredAt);
      }
      const key = `${r.subject_id}:${r.discord_id}`;
      rowsByKey.set(key, [...(rowsByKey.get(key) ?? []), r.created_at.getTime()]);
    }
    const delivery: number[] = [];
    for (const d of [...dmRequests].sort((a, b) => a.at - b.at)) {
      const key = `${d.listingId}:${userOfChannel.get(d.channelId) ?? "?"}`;
      const queued = rowsByKey.get(key)?.shift();
      if (queued !== undefined) delivery.push(d.at - queued);
    }

    return {
      intervalMs: opts.intervalMs,
      users: opts.users,
      rules: stored.length,
      listings: {
        matching: matchingCreated,
        noise: created.size - matchingCreated,
        durationMs: opts.durationMs,
      },
      feedBudget,
      feed: {
        cycles,
        meanPeriodMs: round(arrivalWallMs / Math.max(1, cycles)),
        measuredPeriodMs: round(periodMs, 1),
        pagesPerCycle: round(pages / Math.max(1, cycles), 2),
      },
      dms: {
        expected,
        received: dmRequests.length,
        missing,
        unexpected,
        failedRequests,
        channelOpens: dmChannelOpens,
      },
      shortListings: await explainShort(world.db, short),
      perDm: distribution(perDm),
      perListingFirst: distribution(firsts),
      placedLate: distribution(late),
      detection: distribution(detection),
      detectionSplit: { pollWait: distribution(pollWait), pageToRow: distribution(pageToRow) },
      delivery: distribution(delivery),
      cpuCoresUsed: round((cpu.user + cpu.system) / 1000 / arrivalWallMs, 2),
      problems: world.logs.summary(),
    };
  } finally {
    await world.stop();
  }
}
