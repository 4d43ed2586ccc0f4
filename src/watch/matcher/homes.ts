// Where a rule lives in the matcher index: the kind of key it is filed under (its home), and what that key decides for it.
import { IMPLIES_DEF, IMPLIES_PAINT } from "./axes.ts";
import type { CompiledFilters } from "../ruleFilters.ts";

/** Where a rule lives: under its most selective key. */
export const HOME_NAME = 0;
export const HOME_SEED = 1;
export const HOME_DEF_PAINT = 2;
export const HOME_DEF = 3;
export const HOME_PAINT = 4;
export const HOME_STICKER = 5;
export const HOME_KEYCHAIN = 6;
export const HOME_BROAD = 7;

/**
 * A short seed list beats def/paint: each seed is ~1 listing in 1000, a popular skin can be a
 * few in 100. Longer lists stay under def/paint so one rule does not sit in a hundred buckets.
 */
export const MAX_SEEDS_AS_KEY = 10;

/**
 * The most selective key of a rule: item name, else a short seed list, else def+paint, else
 * def, else paint, else (rules without any of those) a sticker, a keychain, or a long seed list,
 * else a broad bucket. A seed rule is filed under each of its seeds on the seed axis of its
 * name's bucket, else of its def+paint's or its def's bucket, else of the one seed bucket for
 * rules with neither (HOME_SEED says which rules go by seed); a listing has one seed, so it
 * still meets the rule at most once, and a rule with only seeds for lists needs no seed check
 * there. Only its name's bucket ever sees a rule with an item, so the name needs no check per rule.
 */
export function homeOf(c: CompiledFilters, seeds: readonly number[] | null): number {
  if (c.itemLower !== "") return HOME_NAME;
  if (seeds !== null && seeds.length <= MAX_SEEDS_AS_KEY) return HOME_SEED;
  if (c.defIndex >= 0 && c.paintIndex >= 0) return HOME_DEF_PAINT;
  if (c.defIndex >= 0) return HOME_DEF;
  if (c.paintIndex >= 0) return HOME_PAINT;
  if (c.stickerIds?.[0] !== undefined) return HOME_STICKER;
  if (c.keychainIds?.[0] !== undefined) return HOME_KEYCHAIN;
  if (seeds !== null) return HOME_SEED;
  return HOME_BROAD;
}

/**
 * Broad rules (no item, index, seed, sticker or keychain) are split by type and category
 * (CompiledFilters' codes, type < 3, category < 4): a listing visits only the broad buckets of
 * "any" and its own type and category, then each one's sorted lists cut the rest.
 */
export const broadKey = (type: number, category: number) => type * 4 + category;

/** What a bucket's key decides for its rules (axes.ts' IMPLIES_*): a listing visits only its own. */
export function impliesOf(home: number): number {
  switch (home) {
    case HOME_DEF_PAINT:
      return IMPLIES_DEF | IMPLIES_PAINT;
    case HOME_DEF:
      return IMPLIES_DEF;
    case HOME_PAINT:
      return IMPLIES_PAINT;
    default:
      return 0;
  }
}
