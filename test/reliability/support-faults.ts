// Shared by the fault and crash suites: alert DMs counted per listing or trade at the Discord double,
// sandbox fault use counts, a private Postgres server that can be stopped and started again, and
// item names no seeded listing carries.
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { createPrismaClient } from "../../src/db/index.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded.ts";
import { freePort } from "../../src/db/embeddedHost.ts";
import { migrate } from "../../src/db/migrate.ts";
import type { PrismaClient } from "../../src/generated/prisma/client.ts";
import type { Logger } from "../../src/log.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { expect } from "vitest";
import { textOf, type DiscordDouble, type StoredMessage } from "../support/discord.ts";
import { alertEngineOf, type Bot, type BotUser } from "../support/harness.ts";
import type { Tally } from "./report.ts";
import { answer, until } from "./support.ts";

/** A market_hash_name no seeded listing carries, so a rule on it matches only what a test creates. */
export function uniqueItem(tag: string): string {
  return `Test Blade | ${tag} ${randomBytes(3).toString("hex")} (Pristine)`;
}

/** The feed polled every 300 ms; bids and trades, not under test, left alone for the whole run. */
export const FAST_FEED_ENV = {
  POLL_INTERVAL_MS: "300",
  BID_POLL_INTERVAL_MS: "60000",
  TRADE_POLL_INTERVAL_MS: "60000",
} as const;

/** Adds a watch rule on `item` for `user` through `/watch add`; the bot must confirm it. */
export async function watchItem(bot: Bot, user: BotUser, name: string, item: string): Promise<void> {
  const added = await answer(bot.double.slash(user, "watch add", { name, item }));
  expect(textOf(added)).toContain("Watching");
}

/**
 * Waits for this bot to lead two more feed cycles: past the first run (it only sets the mark) and
 * with the rules added before the call in the index.
 */
export async function twoFeedCycles(bot: Bot, what: string): Promise<void> {
  const engine = () => alertEngineOf(bot);
  const cyclesNow = engine().stats().feed.cycles;
  await until(
    () => Promise.resolve(engine().stats().leader && engine().stats().feed.cycles >= cyclesNow + 2),
    what,
    60_000,
  );
}

/** Messages the bot sent to the user's DM channel on its own: alerts, not replies to interactions. */
export function alertDms(double: DiscordDouble, userId: string): StoredMessage[] {
  return double.dmsTo(userId).filter((m) => m.interactionId === undefined && !m.deleted);
}

/** "Listing 123" but not "Listing 1234": alert footers name the subject this way. */
function subjectPattern(noun: "Listing" | "Trade", id: string): RegExp {
  return new RegExp(`\\b${noun} ${id}(?!\\d)`);
}

export function mentions(m: StoredMessage, noun: "Listing" | "Trade", id: string): boolean {
  return subjectPattern(noun, id).test(textOf(m));
}

/** How many of `messages` are about each id (every id is present in the result, 0 when none). */
export function countBySubject(
  messages: readonly StoredMessage[],
  noun: "Listing" | "Trade",
  ids: readonly string[],
): Map<string, number> {
  const counts = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const m of messages) {
    const text = textOf(m);
    for (const id of ids) if (subjectPattern(noun, id).test(text)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export interface DeliveryTally {
  expected: number;
  delivered: number;
  /** Expected alerts with no message at all. */
  lost: string[];
  /** Subjects with more than one message (id -> count). */
  duplicates: Record<string, number>;
}

/** Compares what arrived with what was due: every expected subject exactly once. */
export function tallyDelivery(counts: ReadonlyMap<string, number>): DeliveryTally {
  const lost: string[] = [];
  const duplicates: Record<string, number> = {};
  let delivered = 0;
  for (const [id, n] of counts) {
    if (n === 0) lost.push(id);
    else delivered += 1;
    if (n > 1) duplicates[id] = n;
  }
  return { expected: counts.size, delivered, lost, duplicates };
}

const DELIVERY_COUNTS = ["alerts expected", "alerts delivered", "alerts lost", "duplicates"] as const;

/** Puts the delivery totals first in a section (counts keep the order they were first touched in). */
export function deliveryCountsFirst(tally: Tally): Tally {
  for (const label of DELIVERY_COUNTS) tally.add(label, 0);
  return tally;
}

export function recordDelivery(tally: Tally, d: DeliveryTally): void {
  tally.add("alerts expected", d.expected);
  tally.add("alerts delivered", d.delivered);
  tally.add("alerts lost", d.lost.length);
  tally.add("duplicates", Object.keys(d.duplicates).length);
}

/**
 * How many requests a sandbox fault has answered so far. Faults are injected with a large `times`
 * so that the sandbox's own count of remaining uses says how many requests it caught.
 */
export const FAULT_USES = 1_000_000;

export async function faultUses(sandbox: Sandbox, faultId: number): Promise<number> {
  const res = await fetch(`${sandbox.controlUrl}/faults`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { faults: { id: number; remaining: number | null }[] };
  const fault = body.faults.find((f) => f.id === faultId);
  // A fault used up is removed; ours never are (FAULT_USES), so absence means it was cleared.
  if (fault === undefined) throw new Error(`sandbox fault ${faultId} is gone`);
  if (fault.remaining === null)
    throw new Error(`sandbox fault ${faultId} has no use limit; inject it with FAULT_USES`);
  return FAULT_USES - fault.remaining;
}

/** Requests the double answered with an injected fault since `from` (an index into double.requests). */
export function doubleFaultsSince(double: DiscordDouble, from: number, status?: number): number {
  return double.requests.slice(from).filter((r) => r.fault && (status === undefined || r.status === status))
    .length;
}

/** The shape test/support/harness.ts reuses as a bot's database (not closed by the bot). */
export interface OwnDatabase {
  readonly name: string;
  readonly url: string;
  readonly prisma: PrismaClient;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * A Postgres server of this test's own (embedded binaries, temp folder, free port), never the
 * shared one: it can be stopped and started again on the same port and data, so a bot pointed at
 * it sees the server go away and come back.
 */
export interface OwnPostgres {
  readonly url: string;
  readonly port: number;
  /** A migrated database with a Prisma client over its own pool, as the app builds one. */
  readonly db: OwnDatabase;
  /** pg_ctl stop -m fast: open sessions are terminated, new connections refused. */
  stop(): Promise<void>;
  /** Starts the same cluster on the same port again. */
  start(): Promise<void>;
  running(): boolean;
  /** Stops the server (if running) and removes its folder. */
  destroy(): Promise<void>;
}

export async function startOwnPostgres(logger: Logger): Promise<OwnPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), "bot-dbfault-"));
  // Enterable by user postgres when we run as root (the server runs as postgres then).
  await chmod(dir, 0o711);
  const port = await freePort();
  const launch = () =>
    startEmbeddedPostgres({ baseDir: dir, logger, ephemeral: true, port, database: "bot" });
  let server: EmbeddedPostgres | undefined = await launch();
  const url = server.url;
  await migrate(url, logger);
  const { prisma, pool } = createPrismaClient(url, logger, 10);
  let closed: Promise<void> | undefined;
  const db: OwnDatabase = {
    name: "bot",
    url,
    prisma,
    pool,
    close() {
      closed ??= (async () => {
        await prisma.$disconnect().catch(() => undefined);
        await pool.end().catch(() => undefined);
      })();
      return closed;
    },
  };
  return {
    url,
    port,
    db,
    async stop() {
      const s = server;
      server = undefined;
      await s?.stop();
    },
    async start() {
      if (server !== undefined) return;
      const started = await launch();
      if (started.url !== url) {
        await started.stop();
        throw new Error("the restarted server answers on another URL; the bot could not find it again");
      }
      server = started;
    },
    running: () => server !== undefined,
    async destroy() {
      await db.close();
      await server?.stop().catch(() => undefined);
      server = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
