// The checks behind /healthz: Discord gateway connected, database answering, listing feed not stalled.
import { Status, type Client } from "discord.js";
import type pg from "pg";
import type { FeedHealth } from "../metrics.ts";
import { withTimeout } from "../util/timeout.ts";

export interface CheckResult {
  readonly ok: boolean;
  /** Short reason, shown to whoever curls /healthz. Never a secret or a connection string. */
  readonly detail?: string;
  readonly [extra: string]: unknown;
}

export type HealthCheck = () => CheckResult | Promise<CheckResult>;

export interface HealthReport {
  readonly ok: boolean;
  readonly checks: Record<string, CheckResult>;
}

/** Default bound of one check: a health probe must answer before the orchestrator's own timeout. */
export const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check side by side; a check that throws or overruns its time fails, it never hangs the probe. */
export async function runChecks(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
      try {
        return [
          name,
          await withTimeout(Promise.resolve().then(check), timeoutMs, { errorClass: TimeoutError }),
        ];
      } catch (err) {
        return [name, { ok: false, detail: err instanceof TimeoutError ? err.message : describeError(err) }];
      }
    }),
  );
  const results = Object.fromEntries(entries);
  return { ok: entries.every(([, r]) => r.ok), checks: results };
}

/** Every gateway shard of this process is connected and past READY (a resuming shard is not). */
export function isGatewayUp(client: Client): boolean {
  if (!client.isReady()) return false;
  const shards = [...client.ws.shards.values()];
  return shards.length > 0 && shards.every((shard) => shard.status === Status.Ready);
}

export function gatewayCheck(client: Client): HealthCheck {
  return () => {
    if (isGatewayUp(client)) return { ok: true, ping: client.ws.ping };
    const shards = [...client.ws.shards.values()].map((s) => ({ id: s.id, status: Status[s.status] }));
    return { ok: false, detail: "gateway not connected", shards };
  };
}

/** `SELECT 1` through the app's own pool: proves both the server and a free connection. */
export function databaseCheck(pool: pg.Pool, timeoutMs = CHECK_TIMEOUT_MS): HealthCheck {
  return async () => {
    const started = Date.now();
    try {
      await withTimeout(pool.query("SELECT 1"), timeoutMs, { errorClass: TimeoutError });
    } catch (err) {
      const why = err instanceof TimeoutError ? err.message : describeError(err);
      return { ok: false, detail: `database unreachable: ${why}` };
    }
    return { ok: true, ms: Date.now() - started };
  };
}

/**
 * The feed must have succeeded recently on the replica that runs it. Followers (another replica
 * holds the leadership) and processes without an alert engine have nothing to prove.
 */
export function feedCheck(feed: () => FeedHealth, limitMs: number): HealthCheck {
  return () => {
    const state = feed();
    if (state.role !== "leader") return { ok: true, role: state.role };
    const lagSeconds = round((state.lagMs ?? 0) / 1000);
    if ((state.lagMs ?? 0) <= limitMs) return { ok: true, role: state.role, lagSeconds };
    return {
      ok: false,
      role: state.role,
      lagSeconds,
      detail: `no successful feed cycle for ${lagSeconds} s`,
    };
  };
}

/**
 * Drift of the marketplace's answers from what the bot reads: "degraded", not failing. The bot
 * keeps working where it can (a restart would not fix the service), so the probe stays 200 while
 * the detail and the body's status say what is lost.
 */
export function contractCheck(drift: { summary(): string | undefined }): HealthCheck {
  return () => {
    const summary = drift.summary();
    return summary === undefined
      ? { ok: true }
      : { ok: true, degraded: true, detail: `degraded: ${summary}` };
  };
}

/**
 * How stale the feed may get: twice the slowest pace it picks on purpose (max(60 s, 10 × interval)
 * after failures or an exhausted rate-limit budget), so a slow but working feed never flaps.
 */
export function feedLagLimitMs(pollIntervalMs: number): number {
  return 2 * Math.max(60_000, 10 * pollIntervalMs);
}

class TimeoutError extends Error {}

/** The error's class and code only: driver messages may quote hosts or users. */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return "failed";
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? `${err.name} ${code}` : err.name;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
