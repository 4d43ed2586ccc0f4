// What the feed hands snipe mode: the armed rules' matches, and who acts on them. Snipe's auto-buyer
// (src/snipe/autoBuyer.ts) implements ArmedBuyer; the feed's part is given it by the engine.
import type { ArmMode } from "../db/repos/autoBuys.ts";
import type { Listing } from "../market/schemas.ts";
import type { RuleFilters } from "./ruleFilters.ts";

/** One rule hit's key, `ruleId:listingId`: an armed purchase and an ordinary alert share it. */
export const hitKey = (ruleId: number | string, listingId: string) => `${ruleId}:${listingId}`;

export interface ArmedHit {
  listing: Listing;
  ruleId: number;
  /** The rule's owner as the index knows it (the claim checks it against the stored rule). */
  userId: number;
  mode: ArmMode;
  /**
   * The filters the armed index matched the listing with. A live rule's claim reserves the
   * purchase in the same statement when the listing matches them and they are the filters the
   * owner confirmed (ADR 040); without them the purchase is reserved after the claim.
   */
  filters?: RuleFilters | undefined;
}

/** Acts on armed matches: snipe mode's auto-buyer. */
export interface ArmedBuyer {
  /**
   * Acts on armed matches read by the feed at `readAt` (ms). Resolves once every match is
   * claimed (recorded once, a buy taken from the rule) with the keys (`ruleId:listingId`) it took
   * over from ordinary alerts; the purchases go on in the background.
   */
  act(hits: readonly ArmedHit[], readAt: number): Promise<Set<string>>;
  /**
   * Resolves once the outcome DMs of these hits (`ruleId:listingId`) are queued, or at once for
   * hits with nothing in flight: ordinary alerts of the same listing wait for this (ADR 018).
   */
  outcomesQueued(keys: Iterable<string>): Promise<void>;
}
