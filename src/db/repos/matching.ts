// What the feed's matcher reads of the rules: every enabled rule in batches for its index, the
// cheap probe for changes and the changed rows, and the hit rules with their owners' settings.
import { setImmediate as nextTurn } from "node:timers/promises";
import { z } from "zod";
import type { Db } from "../types.ts";
import type { Destination } from "./users.ts";

/** What the matcher's index reads of an enabled rule, and nothing more. */
export interface EnabledRule {
  id: number;
  userId: number;
  /** Stored JSON: parse with the alerts module's RuleFilters schema before use. */
  filters: unknown;
  armMode: "shadow" | "live" | null;
}

/** A batch of rules as one row (see loadAllEnabledRules). */
interface RawEnabledBatch {
  /** The batch as one JSON array of [id, owner, arm mode (0: none), filters], in id order; null: no rows. */
  rows: string | null;
}

/** One rule as a batch's JSON holds it. */
type RawEnabledRule = [id: number, userId: number, arm: "shadow" | "live" | 0, filters: unknown];

/**
 * Every enabled rule's id, owner and filters, in id order, a batch at a time (keyset pagination
 * on the primary key): a load holds two batches of rows at a time, reads no column and no join
 * the index does not use, and no long transaction holds the table. The next batch's query is
 * sent before this one is yielded, so Postgres reads it while the caller indexes this one
 * (Postgres and the index then work at once: at a million rules either alone is seconds). The
 * batch size sets the load's peak memory (measured at 100k rules: 1,000 rows peak ~175 MB RSS,
 * 5,000 ~197 MB, 10,000 ~211 MB) and hardly its time.
 *
 * A batch comes back as one row holding one JSON text, built by Postgres: an array of
 * `[id, owner, arm mode, filters]`, the filters as stored (json: their text as written). Read row
 * by row, a million rules cost this process 3.3-3.8 s of CPU (a row's decoding, mapping and its
 * own JSON.parse each); as one row a batch, ~1 s, and the aggregation runs in Postgres, at once
 * with the caller's indexing of the previous batch. One JSON.parse a batch makes the numbers
 * numbers (the ids and owners were once comma-separated text, split and converted one by one),
 * and one aggregate sorts once where one per column each sorted the batch on Postgres before 16
 * (ADR 028, 030).
 */
export async function* loadAllEnabledRules(
  db: Db,
  opts: { batchSize?: number } = {},
): AsyncGenerator<EnabledRule[]> {
  const take = opts.batchSize ?? 5000;
  const read = async (afterId: number): Promise<EnabledRule[]> => {
    const [batch] = await db.$queryRaw<RawEnabledBatch[]>`
      SELECT '[' || string_agg(
          '[' || id || ',' || user_id || ',' ||
            coalesce('"' || arm_mode::text || '"', '0') || ',' || filters::text || ']',
          ',' ORDER BY id
        ) || ']' AS rows
      FROM (
        SELECT id, user_id, filters, arm_mode
        FROM watch_rules
        WHERE enabled AND id > ${afterId}
        ORDER BY id
        LIMIT ${take}
      ) AS batch`;
    if (batch?.rows == null) return [];
    const rows = JSON.parse(batch.rows) as RawEnabledRule[];
    return rows.map(([id, userId, arm, filters]) => ({
      id,
      userId,
      filters,
      armMode: arm === "shadow" || arm === "live" ? arm : null,
    }));
  };
  let next: Promise<EnabledRule[]> | undefined = read(0);
  try {
    while (next !== undefined) {
      const rows: EnabledRule[] = await next;
      const last: EnabledRule | undefined = rows[rows.length - 1];
      next = last !== undefined && rows.length === take ? read(last.id) : undefined;
      // The query is not on the wire yet: the client's way to the socket is a chain of promise
      // steps, and the caller indexes this batch synchronously once it is yielded, so the steps
      // would wait behind it and Postgres would start the next batch only when asked for it.
      // One turn of the event loop lets them run first (measured: the load's wait for batches
      // fell from ~4.8 s to ~2.6 s of a million rules, most of the rest being their parsing).
      if (next !== undefined) await nextTurn();
      if (rows.length > 0) yield rows;
    }
  } finally {
    // A caller that stops early leaves no read behind to fail unobserved.
    await next?.catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// The alert engine's reads: the rule index's loads and change probes, the rules behind a listing's
// matches with their owners, names for autocomplete, the owners a feed gap concerns, and a rule
// with its owner for the auto-buyer.

/** A hit's stored rule with its owner's alert settings: what the feed confirms a hit against. */
export interface RuleWithOwner {
  id: number;
  userId: number;
  name: string;
  /** Stored JSON: parse with the alerts module's RuleFilters schema before use. */
  filters: unknown;
  destination: Destination;
  channelId: string | null;
  armMode: "shadow" | "live" | null;
  user: {
    id: number;
    status: "active" | "revoked" | "unlinked";
    alertListing: boolean;
    defaultDestination: Destination;
    defaultChannelId: string | null;
  };
}

const RuleWithOwnerRow = z.object({
  id: z.number(),
  user_id: z.number(),
  name: z.string(),
  filters: z.unknown(),
  destination: z.enum(["dm", "channel"]),
  channel_id: z.string().nullable(),
  arm_mode: z.enum(["shadow", "live"]).nullable(),
  status: z.enum(["active", "revoked", "unlinked"]),
  alert_listing: z.boolean(),
  default_destination: z.enum(["dm", "channel"]),
  default_channel_id: z.string().nullable(),
});

/**
 * The enabled rules among `ids`, each with its owner's alert settings, in one statement (a
 * relation include would read the owners in a second round trip, on the feed's way to Discord).
 */
export async function enabledRulesWithOwners(db: Db, ids: readonly number[]): Promise<RuleWithOwner[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRaw<unknown[]>`
    SELECT r.id, r.user_id, r.name, r.filters, r.destination::text AS destination, r.channel_id,
           r.arm_mode::text AS arm_mode, u.status::text AS status, u.alert_listing,
           u.default_destination::text AS default_destination, u.default_channel_id
      FROM watch_rules r JOIN users u ON u.id = r.user_id
     WHERE r.id = ANY(${[...ids]}::int[]) AND r.enabled`;
  return rows.map((raw) => {
    const r = RuleWithOwnerRow.parse(raw);
    return {
      id: r.id,
      userId: r.user_id,
      name: r.name,
      filters: r.filters,
      destination: r.destination,
      channelId: r.channel_id,
      armMode: r.arm_mode,
      user: {
        id: r.user_id,
        status: r.status,
        alertListing: r.alert_listing,
        defaultDestination: r.default_destination,
        defaultChannelId: r.default_channel_id,
      },
    };
  });
}

/** Rule count and newest change: the rule index's cheap "anything new?" probe. */
export async function ruleSnapshot(db: Db): Promise<{ count: number; max: Date | undefined }> {
  const agg = await db.watchRule.aggregate({ _count: { _all: true }, _max: { updatedAt: true } });
  return { count: agg._count._all, max: agg._max.updatedAt ?? undefined };
}

export function rulesUpdatedSince(db: Db, since: Date) {
  return db.watchRule.findMany({
    where: { updatedAt: { gte: since } },
    select: { id: true, userId: true, filters: true, enabled: true, armMode: true },
  });
}

/**
 * Every enabled rule's id, for the sync to forget deleted rules. One text value, not a row per
 * rule: at 100,000 rules, decoding a row each blocked the event loop for tens of ms on every
 * sync that found a change, while the purchases of armed rules waited on it.
 */
export async function enabledRuleIds(db: Db): Promise<number[]> {
  const [row] = await db.$queryRaw<{ ids: string | null }[]>`
    SELECT string_agg(id::text, ',') AS ids FROM watch_rules WHERE enabled`;
  if (row?.ids == null || row.ids === "") return [];
  return row.ids.split(",").map(Number);
}
