// Everything the bot stores about one user, read as plain data: the export's content and the
// delete's inventory. Each section names the table it comes from (a test holds this list against
// every table of the database that can hold a user's data).
import type { Db } from "../db/types.ts";

/** Export section -> the table it reads. `account` is the users row itself. */
export const SECTION_TABLES = {
  account: "users",
  watchRules: "watch_rules",
  seedTiers: "seed_tiers",
  alerts: "alert_log",
  outbox: "outbox",
  trackedBids: "tracked_bids",
  trackedTrades: "tracked_trades",
  trackedBuyOrders: "tracked_buy_orders",
  purchases: "purchases",
  drafts: "drafts",
  autoBuys: "auto_buys",
  autoAcceptSetting: "auto_accept_settings",
  autoAccepts: "auto_accepts",
  guards: "guards",
  guardEvents: "guard_events",
} as const;

export type Section = keyof typeof SECTION_TABLES;
export type ListSection = Exclude<Section, "account" | "autoAcceptSetting">;

/** A stored row as JSON-ready data: cents and ids as numbers, times as ISO strings. */
export type Row = Record<string, unknown>;

export interface UserData {
  /** The users row without the sealed key; `key` says only whether one is linked and its end. */
  readonly account: Row;
  readonly autoAcceptSetting: Row | null;
  readonly lists: Readonly<Record<ListSection, readonly Row[]>>;
}

/** "linked, ends in …a1b2", or "not linked": the key itself never leaves the database. */
export function describeKey(fingerprint: string | null, linked: boolean): string {
  if (!linked || fingerprint === null) return "not linked";
  return `linked, ends in ${fingerprint.startsWith("…") ? fingerprint : `…${fingerprint.slice(-4)}`}`;
}

/** Reads every row of the user's; undefined when nothing is stored about them. */
export async function readUserData(db: Db, discordId: string): Promise<UserData | undefined> {
  const user = await db.user.findUnique({ where: { discordId } });
  if (user === null) return undefined;
  const { encryptedKey, keyId: _keyId, keyFingerprint, ...profile } = user;
  const userId = user.id;
  const mine = { where: { userId }, orderBy: { id: "asc" } } as const;
  const [
    watchRules,
    seedTiers,
    alerts,
    outbox,
    trackedBids,
    trackedTrades,
    trackedBuyOrders,
    purchases,
    drafts,
    autoBuys,
    autoAcceptSetting,
    autoAccepts,
    guards,
    guardEvents,
  ] = await Promise.all([
    db.watchRule.findMany(mine),
    db.seedTier.findMany(mine),
    db.alertLog.findMany(mine),
    db.outbox.findMany(mine),
    db.trackedBid.findMany(mine),
    db.trackedTrade.findMany(mine),
    db.trackedBuyOrder.findMany(mine),
    db.purchase.findMany(mine),
    db.draft.findMany({ where: { userId }, orderBy: { createdAt: "asc" } }),
    db.autoBuy.findMany(mine),
    db.autoAcceptSetting.findUnique({ where: { userId } }),
    db.autoAccept.findMany(mine),
    db.guard.findMany(mine),
    db.guardEvent.findMany(mine),
  ]);
  return {
    account: {
      ...plain(profile),
      key: describeKey(keyFingerprint, encryptedKey !== null),
    },
    autoAcceptSetting: autoAcceptSetting === null ? null : plain(autoAcceptSetting),
    lists: {
      watchRules: watchRules.map(plain),
      seedTiers: seedTiers.map(plain),
      alerts: alerts.map(plain),
      outbox: outbox.map(plain),
      trackedBids: trackedBids.map(plain),
      trackedTrades: trackedTrades.map(plain),
      trackedBuyOrders: trackedBuyOrders.map(plain),
      purchases: purchases.map(plain),
      drafts: drafts.map(plain),
      autoBuys: autoBuys.map(plain),
      autoAccepts: autoAccepts.map(plain),
      guards: guards.map(plain),
      guardEvents: guardEvents.map(plain),
    },
  };
}

/** BigInt (cents, ids) to numbers (strings beyond 2^53, never rounded), dates to ISO strings. */
export function plain(row: object): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = plainValue(v);
  return out;
}

function plainValue(v: unknown): unknown {
  if (typeof v === "bigint") {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plainValue);
  return v;
}
