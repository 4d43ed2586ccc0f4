// Leader election over one database: a Postgres session advisory lock held on a dedicated connection.
import pg from "pg";
import type { Logger } from "../log.ts";

export interface LeaderOptions {
  /** Connection string of the shared database. */
  url: string;
  logger: Logger;
  /** Which lock: every replica of one deployment must use the same number. */
  lockKey?: number;
  /** How often a follower tries to take the lock and a leader proves its connection alive. */
  checkIntervalMs?: number;
  /**
   * How long a leader trusts its lock without a successful round trip. Also set as the server's
   * idle_session_timeout, so a frozen or partitioned leader's session is ended by Postgres (which
   * frees the lock) at about the time the leader itself stops believing it leads.
   */
  leaseMs?: number;
  onElected?: () => void;
  onDeposed?: () => void;
}

export interface Leader {
  /** Starts trying to take the lock now and every checkIntervalMs. */
  start(): void;
  /** Releases the lock (if held) and closes the connection. */
  stop(): Promise<void>;
  /** One attempt to take or confirm the lock; what the timer runs (tests call it directly). */
  check(): Promise<boolean>;
  /** True only while the lock is held and was confirmed within the lease. */
  isLeader(): boolean;
}

/** Arbitrary but fixed: "alerts" spelled in ASCII, so it is recognisable in pg_locks. */
export const DEFAULT_LEADER_LOCK_KEY = 0x616c657274;

export function createLeader(opts: LeaderOptions): Leader {
  const log = opts.logger.child({ module: "alerts.leader" });
  const lockKey = opts.lockKey ?? DEFAULT_LEADER_LOCK_KEY;
  const checkIntervalMs = opts.checkIntervalMs ?? 5_000;
  const leaseMs = Math.max(opts.leaseMs ?? 30_000, checkIntervalMs * 3);

  let client: pg.Client | undefined;
  let leading = false;
  let confirmedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<boolean> | undefined;

  const depose = (reason: string, err?: unknown) => {
    const wasLeading = leading;
    leading = false;
    const dead = client;
    client = undefined;
    if (dead) {
      dead.removeAllListeners("error");
      // A broken client may emit again while ending: keep one listener so it is never unhandled.
      dead.on("error", () => {});
      void dead.end().catch(() => {});
    }
    if (wasLeading) {
      // Stepping down on a deliberate stop (Ctrl+C, SIGTERM) is expected: not a warning.
      if (reason === "stopped") log.info({ reason }, "stepped down as leader");
      else log.warn({ reason, err }, "lost leadership");
      opts.onDeposed?.();
    }
  };

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({
      connectionString: opts.url,
      keepAlive: true,
      application_name: "alerts-leader",
    });
    c.on("error", (err) => {
      if (client === c) depose("connection error", err);
    });
    c.on("end", () => {
      if (client === c) depose("connection ended");
    });
    await c.connect();
    await c.query(`SET idle_session_timeout = ${Math.round(leaseMs)}`);
    return c;
  };

  const checkOnce = async (): Promise<boolean> => {
    if (stopped) return false;
    try {
      client ??= await connect();
      if (stopped) {
        depose("stopped");
        return false;
      }
      if (leading) {
        // A round trip proves the session (and with it the lock) is still ours.
        await client.query("SELECT 1");
        confirmedAt = Date.now();
        return true;
      }
      const res = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
        lockKey,
      ]);
      if (res.rows[0]?.locked === true) {
        leading = true;
        confirmedAt = Date.now();
        log.info({ lockKey }, "became leader");
        opts.onElected?.();
        return true;
      }
      return false;
    } catch (err) {
      depose("check failed", err);
      if (!stopped) log.debug({ err }, "leader check failed; will retry");
      return false;
    }
  };

  const check = (): Promise<boolean> => {
    // Overlapping checks would open two connections; share the one in flight instead.
    inFlight ??= checkOnce().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    start() {
      stopped = false;
      if (timer) return;
      void check();
      timer = setInterval(() => void check(), checkIntervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await inFlight?.catch(() => false);
      const c = client;
      if (c && leading) {
        await c.query("SELECT pg_advisory_unlock($1)", [lockKey]).catch(() => undefined);
      }
      depose("stopped");
    },
    check,
    isLeader() {
      return leading && Date.now() - confirmedAt < leaseMs;
    },
  };
}
