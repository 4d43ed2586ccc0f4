// What an operator counts at a glance, read at metrics scrape time: rules, users, the automatic
// actions of the last day and the money they committed.
import { z } from "zod";
import type { Db } from "../types.ts";

export interface Inventory {
  /** Enabled watch rules, and how many of them are armed. */
  rules: { enabled: number; armed: number };
  /** Users with a linked marketplace account (status active and a stored key). */
  linkedUsers: number;
  users: number;
  /** Automatic actions started in the last 24 hours, by kind and outcome. */
  automaticActions: Array<{ kind: "auto_buy" | "auto_accept" | "guard"; outcome: string; count: number }>;
  /** Spending commitments of the last 24 hours that hold or spent money, by status, in cents. */
  committedCents: Array<{ status: string; cents: bigint }>;
}

const Count = z.coerce.number().int().nonnegative();
const CountsRow = z.object({ enabled: Count, armed: Count, users: Count, linked: Count });
const ActionRow = z.object({
  kind: z.enum(["auto_buy", "auto_accept", "guard"]),
  outcome: z.string(),
  n: Count,
});
const CommittedRow = z.object({ status: z.string(), cents: z.coerce.bigint() });

/** Statuses whose money is spent or held against the caps (failed and released ones are not). */
const COMMITTING = ["pending", "open", "unknown", "succeeded"];

export async function readInventory(db: Db): Promise<Inventory> {
  const [counts, actions, committed] = await Promise.all([
    db.$queryRaw<unknown[]>`
      SELECT (SELECT count(*) FROM watch_rules WHERE enabled) AS enabled,
             (SELECT count(*) FROM watch_rules WHERE enabled AND arm_mode IS NOT NULL) AS armed,
             (SELECT count(*) FROM users) AS users,
             (SELECT count(*) FROM users WHERE status = 'active' AND encrypted_key IS NOT NULL) AS linked`,
    db.$queryRaw<unknown[]>`
      SELECT 'auto_buy' AS kind, outcome::text AS outcome, count(*) AS n FROM auto_buys
       WHERE created_at > now() - interval '24 hours' GROUP BY outcome
      UNION ALL
      SELECT 'auto_accept', outcome, count(*) FROM auto_accepts
       WHERE created_at > now() - interval '24 hours' GROUP BY outcome
      UNION ALL
      SELECT 'guard', kind, count(*) FROM guard_events
       WHERE at > now() - interval '24 hours' GROUP BY kind`,
    db.$queryRaw<unknown[]>`
      SELECT status::text AS status, coalesce(sum(total_cents), 0) AS cents FROM purchases
       WHERE created_at > now() - interval '24 hours' AND status::text = ANY(${COMMITTING})
       GROUP BY status`,
  ]);
  const c = CountsRow.parse(counts[0]);
  return {
    rules: { enabled: c.enabled, armed: c.armed },
    users: c.users,
    linkedUsers: c.linked,
    automaticActions: z
      .array(ActionRow)
      .parse(actions)
      .map((r) => ({ kind: r.kind, outcome: r.outcome, count: r.n })),
    committedCents: z.array(CommittedRow).parse(committed),
  };
}

/** The database health probe the metrics poll (src/metricsDatabase.ts): one trivial round trip. */
export async function ping(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
