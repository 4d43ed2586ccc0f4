// One pass over every active guard, user by user, on the user's own key at the request
// scheduler's background priority; then the digests that are due.
import type { KeyOpener } from "../accountPollers/accounts.ts";
import { activeGuards, guardAsStored, type GuardRecord } from "../db/repos/guards.ts";
import { getUserById } from "../db/repos/users.ts";
import type { MarketApi, MarketClient } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import { guardBuyOrder } from "./buyOrderGuard.ts";
import { stopGuard, type GuardDeps } from "./deps.ts";
import { queueGuardDigests } from "./digest.ts";
import { guardListing } from "./listingGuard.ts";

/** How long a guard's changes wait to be told together (one DM per period). */
export const DEFAULT_DIGEST_EVERY_MS = 60 * 60_000;

export interface GuardRunnerDeps extends GuardDeps {
  market: MarketClient;
  openKey: KeyOpener;
  digestEveryMs?: number;
  /** Told when a digest is queued, so delivery can start at once. */
  onAlertQueued?: () => void;
}

export interface GuardRunner {
  /** Runs every active guard once; returns how many were run. */
  runOnce(): Promise<number>;
  /** Queues the digests due at `at` (default now); returns how many. */
  runDigestsOnce(at?: Date): Promise<number>;
}

export function createGuardRunner(deps: GuardRunnerDeps): GuardRunner {
  const log = deps.logger.child({ module: "guards" });
  const stepDeps: GuardDeps = { prisma: deps.prisma, logger: log, now: deps.now };
  const everyMs = deps.digestEveryMs ?? DEFAULT_DIGEST_EVERY_MS;

  async function apiOf(userId: number): Promise<{ api: MarketApi; linkGeneration: number } | string> {
    const user = await getUserById(deps.prisma, userId);
    if (user === null || user.status !== "active" || user.encryptedKey === null)
      return "your account is not linked with a working key; link one with /account link and set the guard again";
    try {
      const api = deps.market.forKey(deps.openKey(user.encryptedKey, user.id), { priority: "background" });
      return { api, linkGeneration: user.linkGeneration };
    } catch {
      return "your stored key could not be opened; link it again with /account link and set the guard again";
    }
  }

  async function runGuard(api: MarketApi, guard: GuardRecord): Promise<void> {
    try {
      if (guard.kind === "buy_order") await guardBuyOrder(stepDeps, api, guard);
      else await guardListing(stepDeps, api, guard);
    } catch (error) {
      if (isMarketError(error, "unauthorized")) {
        await stopGuard(stepDeps, guard, "your API key was refused; link a new one with /account link");
        return;
      }
      // A read failed (rate limit, timeout, 5xx): nothing was changed; tried again next pass.
      log.warn(
        { err: error, guardId: guard.id, userId: guard.userId },
        "guard pass failed; tried again next pass",
      );
    }
  }

  return {
    async runOnce() {
      const guards = await activeGuards(deps.prisma);
      const byUser = new Map<number, GuardRecord[]>();
      for (const g of guards) byUser.set(g.userId, [...(byUser.get(g.userId) ?? []), g]);
      for (const [userId, own] of byUser) {
        const api = await apiOf(userId);
        for (const guard of own) {
          if (typeof api === "string") await stopGuard(stepDeps, guard, api);
          else if (api.linkGeneration !== guard.linkGeneration)
            await stopGuard(
              stepDeps,
              guard,
              "another marketplace account was linked since it was set; set the guard again to use it on this one",
            );
          else {
            // Read again just before its turn: a stop, an unlink or a new limit set while the
            // guards before it ran is honoured before this one reads the market with the key.
            const current = await guardAsStored(deps.prisma, guard);
            if (current !== undefined) await runGuard(api.api, current);
          }
        }
      }
      return guards.length;
    },
    async runDigestsOnce(at) {
      const queued = await queueGuardDigests(stepDeps, everyMs, at ?? deps.now());
      if (queued > 0) deps.onAlertQueued?.();
      return queued;
    },
  };
}
