// Everything the bot stores about one user, read as plain data: the export's content and the
// delete's inventory. Each section names the table it comes from (a test holds this list against
// every table of the database that can hold a user's data).
import { readUserRows } from "../db/repos/privacy.ts";
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
  const rows = await readUserRows(db, discordId);
  if (rows === undefined) return undefined;
  const { encryptedKey, keyId: _keyId, keyFingerprint, ...profile } = rows.user;
  const { lists } = rows;
  return {
    account: {
      ...plain(profile),
      key: describeKey(keyFingerprint, encryptedKey !== null),
    },
    autoAcceptSetting: rows.autoAcceptSetting === null ? null : plain(rows.autoAcceptSetting),
    lists: {
      watchRules: lists.watchRules.map(plain),
      seedTiers: lists.seedTiers.map(plain),
      alerts: lists.alerts.map(plain),
      outbox: lists.outbox.map(plain),
      trackedBids: lists.trackedBids.map(plain),
      trackedTrades: lists.trackedTrades.map(plain),
      trackedBuyOrders: lists.trackedBuyOrders.map(plain),
      purchases: lists.purchases.map(plain),
      drafts: lists.drafts.map(plain),
      autoBuys: lists.autoBuys.map(plain),
      autoAccepts: lists.autoAccepts.map(plain),
      guards: lists.guards.map(plain),
      guardEvents: lists.guardEvents.map(plain),
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
