// Snipe mode: what an armed rule does with a match, the moment the feed hands it on. Shadow
// records and DMs what it would have bought; live buys at the exact listed price through the
// spending guard, one buy at a time per user, never retried, and DMs what happened.
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Listing } from "../market/schemas.ts";
import { UserFacingError } from "../errors.ts";
import {
  claimMatch,
  disarmRules,
  disarmWhenSpent,
  markSent,
  releaseClaim,
  settleAutoBuy,
  type ArmMode,
  type AutoBuyOutcome,
} from "../db/repos/autoBuys.ts";
import { ruleWithOwner } from "../db/repos/rules.ts";
import type { UserRecord } from "../db/repos/users.ts";
import {
  capsOf,
  checkWithinCaps,
  commitmentFailed,
  commitmentSpent,
  reserveOrRefuse,
  AlreadyBought,
  AutomationStopped,
} from "../spending/guard.ts";
import { revokeAccount, type KeyOpener } from "../alerts/accountPollers/accounts.ts";
import { dedupeKey } from "../alerts/delivery/content.ts";
import type { AutoBuyAlert } from "../alerts/delivery/payload.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts } from "../alerts/delivery/store.ts";
import { dealOf } from "../alerts/rules/deal.ts";
import { outcomeOfFailedPurchase } from "./purchaseOutcome.ts";
import { matchesListing, referencePriceOf, RuleFilters } from "../alerts/rules/ruleFilters.ts";

export interface ArmedHit {
  listing: Listing;
  ruleId: number;
  /** The rule's owner as the index knows it (the claim checks it against the stored rule). */
  userId: number;
  mode: ArmMode;
}

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

export interface AutoBuyer {
  /**
   * Acts on armed matches read by the feed at `readAt` (ms). Resolves once every match is
   * claimed (recorded once, a buy taken from the rule) with the keys (`ruleId:listingId`) it took
   * over from ordinary alerts; the purchases go on in the background.
   */
  act(hits: readonly ArmedHit[], readAt: number): Promise<Set<string>>;
  /** Resolves when no purchase is in flight (shutdown, tests). */
  idle(): Promise<void>;
  /**
   * Resolves once the outcome DMs of these hits (`ruleId:listingId`) are queued, or at once for
   * hits with nothing in flight: ordinary alerts of the same listing wait for this (ADR 018).
   */
  outcomesQueued(keys: Iterable<string>): Promise<void>;
}

export const hitKey = (ruleId: number | string, listingId: string) => `${ruleId}:${listingId}`;

/** Reads one rule's name and the owner's user row (one query): both are needed for every match. */
async function ruleAndOwner(db: Db, ruleId: number) {
  const row = await ruleWithOwner(db, ruleId);
  if (row === undefined) return undefined;
  const confirmed = row.armFilters === null ? undefined : RuleFilters.safeParse(row.armFilters);
  return {
    rule: {
      id: row.id,
      name: row.name,
      userId: row.userId,
      /** The filters the live confirmation showed (undefined: none stored, so nothing is bought). */
      confirmedFilters: confirmed?.success === true ? confirmed.data : undefined,
    },
    user: row.user,
  };
}

export function createAutoBuyer(deps: AutoBuyerDeps): AutoBuyer {
  const log = deps.logger.child({ module: "snipe" });
  const now = deps.now ?? (() => new Date());
  const fees = deps.fees ?? DEFAULT_FEES;
  /** Per user, the tail of their purchases: one buy at a time per user. */
  const lanes = new Map<number, Promise<void>>();
  const inFlight = new Set<Promise<void>>();
  /** Per hit key, the work that ends with its outcome DM queued. */
  const outcomes = new Map<string, Promise<void>>();

  function inLane(userId: number, fn: () => Promise<void>): Promise<void> {
    const run = (lanes.get(userId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    lanes.set(userId, tail);
    void tail.then(() => {
      if (lanes.get(userId) === tail) lanes.delete(userId);
    });
    return tail;
  }

  function track(p: Promise<void>): void {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
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

  async function one(hit: ArmedHit, readAt: number): Promise<{ taken: boolean; work?: () => Promise<void> }> {
    const { listing, ruleId, mode } = hit;
    const deal = dealOf(listing, fees, referencePriceOf);
    const ref = referencePriceOf(listing);
    const value = {
      referenceCents: ref === undefined ? undefined : Math.round(ref),
      exitPriceCents: deal.exitBuyOrderCents,
      netResaleCents: deal.netResaleCents,
      exitNetCents: deal.exitCents,
    };
    // The claim and the owner's row are read side by side: two round trips become one wait.
    const [claim, found] = await Promise.all([
      claimMatch(deps.prisma, {
        userId: hit.userId,
        ruleId,
        listingId: listing.id,
        mode,
        itemName: listing.item.market_hash_name,
        priceCents: listing.price,
        referenceCents: value.referenceCents,
        exitCents: value.exitPriceCents,
        seenAt: new Date(readAt),
      }),
      ruleAndOwner(deps.prisma, ruleId),
    ]);
    if (found === undefined || found.user.id !== hit.userId) {
      // The claim checked the owner, so it cannot have taken a buy of someone else's rule.
      if (claim.ok)
        await settleAutoBuy(deps.prisma, claim.autoBuyId, { outcome: "skipped", detail: "rule gone" });
      return { taken: claim.ok || (!claim.ok && claim.reason === "seen") };
    }
    const { rule, user } = found;
    // Seen before: its outcome DM was written then. Not armed any more: an ordinary alert.
    if (!claim.ok) return { taken: claim.reason === "seen" };
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
    const ctx = { userId: user.id, ruleId, listingId: listing.id, mode };

    const finish = async (
      outcome: AutoBuyOutcome & AutoBuyAlert["outcome"],
      opts: { detail?: string; spent: boolean; reactionMs?: number; disarm?: boolean },
    ) => {
      await settleAutoBuy(deps.prisma, claim.autoBuyId, { outcome, detail: opts.detail, at: now() });
      if (!opts.spent) await releaseClaim(deps.prisma, ruleId);
      let disarmed = opts.disarm === true;
      if (disarmed) await disarmRules(deps.prisma, { userId: user.id, ruleId });
      else if (opts.spent) disarmed = await disarmWhenSpent(deps.prisma, ruleId);
      await tell(user.id, {
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
      return { taken: true, work: () => shadow(user, listing, finish) };
    }
    return {
      taken: true,
      work: () =>
        inLane(user.id, () =>
          live(user, hit, rule.confirmedFilters, claim.autoBuyId, readAt, finish).catch(
            async (error: unknown) => {
              // A bug after the claim: say so rather than leave the user guessing.
              log.error({ ...ctx, err: error }, "auto-buy failed unexpectedly");
              await finish("failed", {
                detail: "an internal error stopped it; check /trades list",
                spent: true,
              });
            },
          ),
        ),
    };
  }

  type Finish = (
    outcome: AutoBuyOutcome & AutoBuyAlert["outcome"],
    opts: { detail?: string; spent: boolean; reactionMs?: number; disarm?: boolean },
  ) => Promise<void>;

  /** Shadow: nothing is bought; the caps are checked as a live buy would be, without reserving. */
  async function shadow(user: UserRecord, listing: Listing, finish: Finish): Promise<void> {
    try {
      checkWithinCaps(await capsOf(deps.prisma, user.id), {
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

  async function live(
    user: UserRecord,
    hit: ArmedHit,
    confirmedFilters: RuleFilters | undefined,
    autoBuyId: number,
    readAt: number,
    finish: Finish,
  ): Promise<void> {
    const { listing, ruleId } = hit;
    const keyRefused = (detail: string) => finish("key_refused", { detail, spent: false, disarm: true });
    if (user.status !== "active" || user.encryptedKey === null) {
      await keyRefused("your account is not linked with a working key; link one with /account link");
      return;
    }
    if (user.settings.dailyCapCents === null) {
      await finish("cap_refused", {
        detail: "live auto-buy needs a daily cap; set one with /account settings",
        spent: false,
        disarm: true,
      });
      return;
    }
    if (
      listing.type !== "buy_now" ||
      listing.is_seller === true ||
      (user.platformId !== null && listing.seller?.platform_id === user.platformId)
    ) {
      await finish("failed", { detail: "this listing cannot be bought outright", spent: false });
      return;
    }
    // The rule as the user confirmed it bounds what it buys, whatever it became since.
    if (confirmedFilters === undefined || !matchesListing(confirmedFilters, listing, fees)) {
      await finish("cap_refused", {
        detail:
          "this listing is outside the rule as you confirmed it when arming (the rule changed since); nothing was bought and the rule was disarmed. Arm it again to confirm the change",
        spent: false,
        disarm: true,
      });
      return;
    }
    let api;
    try {
      api = deps.market.forKey(deps.openKey(user.encryptedKey, user.id), { priority: "money" });
    } catch {
      await keyRefused("your stored key could not be opened; link it again with /account link");
      return;
    }
    let commitment;
    try {
      commitment = await reserveOrRefuse(deps.prisma, {
        userId: user.id,
        kind: "auto_buy",
        idempotencyKey: `auto:${ruleId}:${listing.id}`,
        subjectId: listing.id,
        unitPriceCents: listing.price,
        totalCents: listing.price,
        authority: { kind: "rule", ruleId },
      });
    } catch (error) {
      if (error instanceof AlreadyBought) {
        // Another armed rule of this user bought it (or is buying it): one buy, one DM.
        await settleAutoBuy(deps.prisma, autoBuyId, {
          outcome: "skipped",
          detail: "already bought",
          at: now(),
        });
        await releaseClaim(deps.prisma, ruleId);
        log.info({ userId: user.id, ruleId, listingId: listing.id }, "armed match skipped: already bought");
        return;
      }
      if (error instanceof AutomationStopped) {
        // Disarmed, unlinked or relinked since the match was claimed: nothing is bought.
        await finish("failed", { detail: error.message, spent: false });
        return;
      }
      if (!(error instanceof UserFacingError)) throw error;
      const budgetUsed = error.context["cap_kind"] === "confirmed_budget";
      await finish("cap_refused", { detail: error.message, spent: false, disarm: budgetUsed });
      return;
    }
    const sentAt = now();
    const reactionMs = Math.max(0, Date.now() - readAt);
    try {
      await api.buyListings({ contract_ids: [listing.id], total_price: listing.price });
    } catch (error) {
      await commitmentFailed(deps.prisma, commitment, error);
      await markSent(deps.prisma, autoBuyId, sentAt);
      await failed(user, error, reactionMs, finish);
      return;
    }
    await commitmentSpent(deps.prisma, commitment);
    await markSent(deps.prisma, autoBuyId, sentAt);
    await finish("bought", { spent: true, reactionMs });
  }

  /** Why a sent purchase did not go through, told as the user needs it; never retried. */
  async function failed(user: UserRecord, error: unknown, reactionMs: number, finish: Finish): Promise<void> {
    const o = outcomeOfFailedPurchase(error);
    if (o.revokeKey) {
      await revokeAccount(
        { prisma: deps.prisma, market: deps.market, openKey: deps.openKey, logger: deps.logger },
        user,
      );
      await disarmRules(deps.prisma, { userId: user.id, mode: "live" });
    }
    await finish(o.outcome, { detail: o.detail, spent: o.spent, disarm: o.disarm, reactionMs });
  }

  return {
    async act(hits, readAt) {
      const taken = new Set<string>();
      // Claims run side by side (each is one statement); the purchases then start at once.
      const results = await Promise.all(
        hits.map((hit) =>
          one(hit, readAt).catch((error: unknown) => {
            log.error(
              { ruleId: hit.ruleId, listingId: hit.listing.id, err: error },
              "armed match not claimed",
            );
            return { taken: false } as { taken: boolean; work?: () => Promise<void> };
          }),
        ),
      );
      results.forEach((r, i) => {
        const hit = hits[i];
        if (hit === undefined || !r.taken) return;
        const key = hitKey(hit.ruleId, hit.listing.id);
        taken.add(key);
        if (r.work) {
          const work = r.work();
          track(work);
          outcomes.set(key, work);
          void work.finally(() => {
            if (outcomes.get(key) === work) outcomes.delete(key);
          });
        }
      });
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
