// The matcher index's contract: the rule it takes and what it answers.
import type { Listing } from "../../market/schemas.ts";
import type { RuleFilters } from "../ruleFilters.ts";
import type { MatchIds, RuleRef } from "./matchIds.ts";

export interface MatcherRule {
  /** A number and its decimal string are the same rule. */
  id: string | number;
  /** A number and its decimal string are the same owner (ownerOf gives the string). */
  userId: string | number;
  filters: RuleFilters;
}

export interface MatcherIndex {
  /** Adds a rule, replacing any rule with the same id. */
  add(rule: MatcherRule): void;
  /** Removes a rule; unknown ids are ignored. Returns whether a rule was removed. */
  remove(ruleId: string | number): boolean;
  /** Same as add: replaces the rule with that id (or adds it). */
  update(rule: MatcherRule): void;
  readonly size: number;
  /** Every rule id in the index, in no particular order. */
  ids(): IterableIterator<string>;
  /** Rules the listing satisfies, each at most once, in no particular order. */
  match(listing: Listing): RuleRef[];
  /**
   * The feed's hot path: the ids of the rules the listing satisfies (numbers for numeric ids, as
   * database ids are), each at most once, in no particular order. Read from the matched entries
   * alone: nothing per rule outside the bucket lists is touched, so a listing matching thousands
   * of rules costs a scan, not thousands of cache misses. A new array per listing: the feed
   * matches into one reused MatchIds instead (matchInto).
   */
  matchIds(listing: Listing): Array<number | string>;
  /** matchIds into `found` (its count reset first): the feed's hot path, allocating nothing. Returns the count. */
  matchInto(listing: Listing, found: MatchIds): number;
  /** The owner of a rule in the index (undefined when it is not). */
  ownerOf(ruleId: string | number): string | undefined;
  /**
   * Sorts and packs the rules added since the last match (match does it first when needed); a
   * bulk load calls it to pay that cost, and free the room adding used, before the first listing
   * (it also trims the arena's spare room, which a match's settle leaves for the next edits).
   */
  settle(): void;
}
