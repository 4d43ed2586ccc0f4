// A live-armed rule's purchase of a claimed match: the checks that bound it, the reservation
// under the user's caps (made by the claim's own statement when it could, ADR 040), the one
// purchase request at the exact listed price, never retried, and what became of it.
import type { FeeModel } from "../market/fees.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Listing } from "../market/schemas.ts";
import { UserFacingError } from "../errors.ts";
import {
  disarmRules,
  markSent,
  releaseClaim,
  settleAutoBuy,
  type ArmedOwner,
  type AutoBuyOutcome,
} from "../db/repos/autoBuys.ts";
import type { ReserveResult } from "../db/repos/purchases.ts";
import {
  commitmentFailed,
  commitmentOrRefusal,
  commitmentRefused,
  commitmentSpent,
  reserveOrRefuse,
  AlreadyBought,
  AutomationStopped,
  type Commitment,
  type SpendRequest,
} from "../spending/guard.ts";
import { revokeAccount, type KeyOpener } from "../accountPollers/accounts.ts";
import type { AutoBuyAlert } from "../outbox/payload.ts";
import type { Db } from "../db/types.ts";
import { outcomeOfFailedPurchase } from "./purchaseOutcome.ts";
import { matchesListing, type RuleFilters } from "../watch/ruleFilters.ts";

/** A listing an automatic buy may take at its listed price: a buy-now listing not the user's own. */
export function buyableOutright(listing: Listing): boolean {
  return listing.type === "buy_now" && listing.is_seller !== true;
}

/** What an armed rule's purchase of a listing commits: the listed price, once per rule and listing. */
export function purchaseOf(hit: { userId: number; ruleId: number; listing: Listing }): SpendRequest {
  return {
    userId: hit.userId,
    kind: "auto_buy",
    idempotencyKey: `auto:${hit.ruleId}:${hit.listing.id}`,
    subjectId: hit.listing.id,
    unitPriceCents: hit.listing.price,
    totalCents: hit.listing.price,
    authority: { kind: "rule", ruleId: hit.ruleId },
  };
}

/** Records a claimed match's outcome, gives back an unused buy, disarms as asked, and DMs it. */
export type Finish = (
  outcome: AutoBuyOutcome & AutoBuyAlert["outcome"],
  opts: { detail?: string; spent: boolean; reactionMs?: number; disarm?: boolean },
) => Promise<void>;

/** A live rule's claimed match, as the claim's statement read it. */
export interface ArmedPurchase {
  owner: ArmedOwner;
  ruleId: number;
  listing: Listing;
  purchase: SpendRequest;
  /** The filters the live confirmation showed (undefined: none stored, so nothing is bought). */
  confirmedFilters: RuleFilters | undefined;
  autoBuyId: number;
  /** Reserved (or refused) by the claim's statement; undefined: reserved here. */
  reserved: ReserveResult | undefined;
  /** When the feed's page answered (ms): the reaction is measured from it. */
  readAt: number;
}

export interface LivePurchaseDeps {
  prisma: Db;
  market: MarketClient;
  openKey: KeyOpener;
  logger: Logger;
  log: Logger;
  now: () => Date;
  fees: FeeModel;
}

type Refusal = { outcome: "key_refused" | "cap_refused" | "failed"; detail: string; disarm: boolean };

/**
 * Why a claimed match may not be bought, checked with the rule and owner as the claim read
 * them; undefined: it may. Only for a match the claim did not reserve: one it reserved passed
 * the same checks in its statement.
 */
function refusalOf(a: ArmedPurchase, fees: FeeModel): Refusal | undefined {
  const { owner, listing } = a;
  if (owner.status !== "active" || owner.encryptedKey === null) {
    return {
      outcome: "key_refused",
      detail: "your account is not linked with a working key; link one with /account link",
      disarm: true,
    };
  }
  if (owner.dailyCapCents === null) {
    return {
      outcome: "cap_refused",
      detail: "live auto-buy needs a daily cap; set one with /account settings",
      disarm: true,
    };
  }
  if (
    !buyableOutright(listing) ||
    (owner.platformId !== null && listing.seller?.platform_id === owner.platformId)
  ) {
    return { outcome: "failed", detail: "this listing cannot be bought outright", disarm: false };
  }
  // The rule as the user confirmed it bounds what it buys, whatever it became since.
  if (a.confirmedFilters === undefined || !matchesListing(a.confirmedFilters, listing, fees)) {
    return {
      outcome: "cap_refused",
      detail:
        "this listing is outside the rule as you confirmed it when arming (the rule changed since); nothing was bought and the rule was disarmed. Arm it again to confirm the change",
      disarm: true,
    };
  }
  return undefined;
}

/** Buys the claimed match once, within everything the user confirmed, and tells them. */
export async function buyArmedMatch(deps: LivePurchaseDeps, a: ArmedPurchase, finish: Finish): Promise<void> {
  const { owner, listing, ruleId, autoBuyId } = a;
  if (a.reserved === undefined) {
    const refusal = refusalOf(a, deps.fees);
    if (refusal !== undefined) {
      await finish(refusal.outcome, { detail: refusal.detail, spent: false, disarm: refusal.disarm });
      return;
    }
  }
  let api;
  try {
    if (owner.encryptedKey === null) throw new Error("no stored key");
    api = deps.market.forKey(deps.openKey(owner.encryptedKey, owner.id), { priority: "money" });
  } catch {
    // Nothing was sent: a commitment the claim reserved is released.
    if (a.reserved?.ok === true) await commitmentRefused(deps.prisma, a.reserved.purchase, "key_unreadable");
    await finish("key_refused", {
      detail: "your stored key could not be opened; link it again with /account link",
      spent: false,
      disarm: true,
    });
    return;
  }
  let commitment: Commitment;
  try {
    commitment =
      a.reserved === undefined
        ? await reserveOrRefuse(deps.prisma, a.purchase)
        : commitmentOrRefusal(a.purchase, a.reserved);
  } catch (error) {
    if (error instanceof AlreadyBought) {
      // Another armed rule of this user bought it (or is buying it): one buy, one DM.
      await settleAutoBuy(deps.prisma, autoBuyId, {
        outcome: "skipped",
        detail: "already bought",
        at: deps.now(),
      });
      await releaseClaim(deps.prisma, autoBuyId);
      deps.log.info(
        { userId: owner.id, ruleId, listingId: listing.id },
        "armed match skipped: already bought",
      );
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
  const sentAt = deps.now();
  const reactionMs = Math.max(0, Date.now() - a.readAt);
  try {
    await api.buyListings({ contract_ids: [listing.id], total_price: listing.price });
  } catch (error) {
    await commitmentFailed(deps.prisma, commitment, error);
    await markSent(deps.prisma, autoBuyId, sentAt);
    await failed(deps, owner, error, reactionMs, finish);
    return;
  }
  await commitmentSpent(deps.prisma, commitment);
  await markSent(deps.prisma, autoBuyId, sentAt);
  await finish("bought", { spent: true, reactionMs });
}

/** Why a sent purchase did not go through, told as the user needs it; never retried. */
async function failed(
  deps: LivePurchaseDeps,
  owner: ArmedOwner,
  error: unknown,
  reactionMs: number,
  finish: Finish,
): Promise<void> {
  const o = outcomeOfFailedPurchase(error);
  if (o.revokeKey) {
    await revokeAccount(
      { prisma: deps.prisma, market: deps.market, openKey: deps.openKey, logger: deps.logger },
      owner,
    );
    await disarmRules(deps.prisma, { userId: owner.id, mode: "live" });
  }
  await finish(o.outcome, { detail: o.detail, spent: o.spent, disarm: o.disarm, reactionMs });
}
