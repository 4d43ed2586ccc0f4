// Snipe mode: what an armed rule does with a match, the moment the feed hands it on. Shadow
// records and DMs what it would have bought; live buys at the exact listed price through the
// spending guard, each reserved on its own against the user's caps, never retried, and DMs what
// happened.
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Listing } from "../market/schemas.ts";
import { UserFacingError } from "../errors.ts";
import {
  claimArmedMatch,
  disarmRules,
  disarmWhenSpent,
  releaseClaim,
  settleAutoBuy,
} from "../db/repos/autoBuys.ts";
import { capsOf, checkWithinCaps, reservationOf } from "../spending/guard.ts";
import { hitKey, type ArmedBuyer, type ArmedHit } from "../watch/armedHits.ts";
import type { KeyOpener } from "../accountPollers/accounts.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { AutoBuyAlert } from "../outbox/payload.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts } from "../outbox/store.ts";
import { dealOf } from "../watch/deal.ts";
import { referencePriceOf } from "../market/reference.ts";
import { matchesListing, RuleFilters } from "../watch/ruleFilters.ts";
import {
  buyableOutright,
  buyArmedMatch,
  purchaseOf,
  type ArmedPurchase,
  type Finish,
} from "./livePurchase.ts";

export interface AutoBuyerDeps {
  prisma: Db;
  market: MarketClient;
  openKey: KeyOpener;
  logger: Logger;
  now?: () => Date;
  fees?: FeeModel;
  /** Told when an outcome DM is queued, so delivery can start at once. */
  onAlertQueued?: () => void;
}

export interface AutoBuyer extends ArmedBuyer {
  /** Resolves when no purchase is in flight (shutdown, tests). */
  idle(): Promise<void>;
}

export function createAutoBuyer(deps: AutoBuyerDeps): AutoBuyer {
  const log = deps.logger.child({ module: "snipe" });
  const now = deps.now ?? (() => new Date());
  const fees = deps.fees ?? DEFAULT_FEES;
  const live = { ...deps, log, now, fees };
  const inFlight = new Set<Promise<void>>();
  /** Per hit key, the work that ends with its outcome DM queued. */
  const outcomes = new Map<string, Promise<void>>();

  /**
   * Runs a claimed match's work, tracked until its outcome DM is queued. The purchases of one
   * user run side by side like anyone's: each was reserved on its own against the user's caps,
   * under their row lock, so none waits for another's answer to leave.
   */
  function start(key: string, running: Promise<void>): void {
    const work = running.catch((error: unknown) => {
      // Not even the outcome could be recorded (the database gone): logged, never the end of the
      // process; a purchase already sent stays in the spending ledger for its reconciler.
      log.error({ key, err: error }, "armed match's outcome not recorded");
    });
    inFlight.add(work);
    outcomes.set(key, work);
    void work.finally(() => {
      inFlight.delete(work);
      if (outcomes.get(key) === work) outcomes.delete(key);
    });
  }

  async function tell(userId: number, alert: AutoBuyAlert): Promise<void> {
    const written = await writeAlerts(deps.prisma, [
      {
        userId,
        ruleId: Number(alert.ruleId),
        kind: "auto_buy",
        subjectId: alert.listingId,
        version: `${alert.mode}:${alert.outcome}`,
        dedupeKey: dedupeKey.autoBuy(alert.ruleId, alert.listingId),
        // Money outcomes are private: always a DM, whatever the rule's destination.
        destination: "dm",
        alert,
      },
    ]);
    if (written.length > 0) deps.onAlertQueued?.();
  }

  /** Claims the match and starts what it does; true when it took the match over from ordinary alerts. */
  async function one(hit: ArmedHit, readAt: number): Promise<boolean> {
    const { listing, ruleId, mode } = hit;
    const key = hitKey(ruleId, listing.id);
    const deal = dealOf(listing, fees, referencePriceOf);
    const ref = referencePriceOf(listing);
    const value = {
      referenceCents: ref === undefined ? undefined : Math.round(ref),
      exitPriceCents: deal.exitBuyOrderCents,
      netResaleCents: deal.netResaleCents,
      exitNetCents: deal.exitCents,
    };
    const purchase = purchaseOf(hit);
    // A live rule's purchase is reserved by the claim's own statement when the listing is within
    // the filters the index matched it with and can be bought outright; the statement checks
    // those filters are the confirmed ones, and the owner's account and caps (ADR 040).
    const reserveNow =
      mode === "live" &&
      hit.filters !== undefined &&
      buyableOutright(listing) &&
      matchesListing(hit.filters, listing, fees);
    const claim = await claimArmedMatch(deps.prisma, {
      userId: hit.userId,
      ruleId,
      listingId: listing.id,
      mode,
      itemName: listing.item.market_hash_name,
      priceCents: listing.price,
      referenceCents: value.referenceCents,
      exitCents: value.exitPriceCents,
      seenAt: new Date(readAt),
      reserve: reserveNow
        ? {
            request: reservationOf(purchase),
            filters: hit.filters,
            sellerPlatformId: listing.seller?.platform_id ?? null,
          }
        : undefined,
    });
    // Seen before: its outcome DM was written then. Not armed any more (or gone): an ordinary alert.
    if (!claim.ok) return claim.reason === "seen";
    const { owner, rule } = claim;
    const base = {
      kind: "auto_buy" as const,
      mode,
      ruleId: String(ruleId),
      ruleName: rule.name,
      listingId: listing.id,
      itemName: listing.item.market_hash_name,
      priceCents: listing.price,
      buyNumber: claim.buyNumber,
      maxBuys: claim.maxBuys,
      ...(value.referenceCents === undefined ? {} : { referenceCents: value.referenceCents }),
      ...(value.netResaleCents === undefined ? {} : { netResaleCents: value.netResaleCents }),
      ...(value.exitNetCents === undefined ? {} : { exitNetCents: value.exitNetCents }),
    };
    const ctx = { userId: owner.id, ruleId, listingId: listing.id, mode };

    const finish: Finish = async (outcome, opts) => {
      await settleAutoBuy(deps.prisma, claim.autoBuyId, { outcome, detail: opts.detail, at: now() });
      if (!opts.spent) await releaseClaim(deps.prisma, claim.autoBuyId);
      let disarmed = opts.disarm === true;
      if (disarmed) await disarmRules(deps.prisma, { userId: owner.id, ruleId });
      else if (opts.spent) disarmed = await disarmWhenSpent(deps.prisma, ruleId);
      await tell(owner.id, {
        ...base,
        outcome,
        // A buy that did not happen did not use one of the rule's buys.
        buyNumber: opts.spent ? claim.buyNumber : claim.buyNumber - 1,
        disarmed,
        ...(opts.detail === undefined ? {} : { detail: opts.detail }),
        ...(opts.reactionMs === undefined ? {} : { reactionMs: opts.reactionMs }),
      });
      log.info({ ...ctx, outcome, disarmed }, "armed match handled");
    };

    if (mode === "shadow") {
      start(key, shadow(owner.id, listing, finish));
      return true;
    }
    const confirmed = rule.armFilters === null ? undefined : RuleFilters.safeParse(rule.armFilters);
    const armed: ArmedPurchase = {
      owner,
      ruleId,
      listing,
      purchase,
      confirmedFilters: confirmed?.success === true ? confirmed.data : undefined,
      autoBuyId: claim.autoBuyId,
      reserved: claim.reserved,
      readAt,
    };
    start(
      key,
      buyArmedMatch(live, armed, finish).catch(async (error: unknown) => {
        // A bug after the claim: say so rather than leave the user guessing.
        log.error({ ...ctx, err: error }, "auto-buy failed unexpectedly");
        await finish("failed", {
          detail: "an internal error stopped it; check /trades list",
          spent: true,
        });
      }),
    );
    return true;
  }

  /** Shadow: nothing is bought; the caps are checked as a live buy would be, without reserving. */
  async function shadow(userId: number, listing: Listing, finish: Finish): Promise<void> {
    try {
      checkWithinCaps(await capsOf(deps.prisma, userId), {
        kind: "auto_buy",
        unitPriceCents: listing.price,
        totalCents: listing.price,
      });
    } catch (error) {
      if (!(error instanceof UserFacingError)) throw error;
      await finish("would_refuse", { detail: error.message, spent: false });
      return;
    }
    await finish("would_buy", { spent: true });
  }

  return {
    async act(hits, readAt) {
      const taken = new Set<string>();
      // Claims run side by side (each is one statement), and each purchase starts the moment its
      // own claim is in: a page's slowest claim (one waiting on its owner's row) holds back no
      // other purchase.
      await Promise.all(
        hits.map(async (hit) => {
          try {
            if (await one(hit, readAt)) taken.add(hitKey(hit.ruleId, hit.listing.id));
          } catch (error) {
            log.error(
              { ruleId: hit.ruleId, listingId: hit.listing.id, err: error },
              "armed match not claimed",
            );
          }
        }),
      );
      return taken;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async outcomesQueued(keys) {
      const waits = [...keys].flatMap((k) => {
        const work = outcomes.get(k);
        return work === undefined ? [] : [work];
      });
      await Promise.allSettled(waits);
    },
  };
}
