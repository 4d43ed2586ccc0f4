// Deal-quality bounds as the matcher and matchesFacts read them: parallel arrays of a rule's bounds and a listing's values, in the registry's deal-bound order.
import type { DealFacts } from "./deal.ts";
import type { DealFact } from "./filters/filter.ts";
import { boundLimit, meetsBound } from "./filters/facts.ts";
import { DEAL_BOUNDS } from "./filters/registry.ts";

// Each deal filter (its schema, options, words and bounds) is an entry of the filter registry,
// src/watch/filters/dealQuality.ts. A rule's deal bounds and a listing's deal values are
// parallel arrays (same order: the registry's DEAL_BOUNDS), NaN for "not set" / "absent". One
// function decides them for matchesFacts and the index alike.

export { MAX_TIER_NAME } from "./filters/identity.ts";

const IS_MAX = DEAL_BOUNDS.map((b) => b.max);
const FACTS: readonly DealFact[] = DEAL_BOUNDS.map((b) => b.fact);
/** Per position: whether the bound is a maximum (the index sorts each position's bounds by it). */
export const DEAL_BOUND_IS_MAX: readonly boolean[] = IS_MAX;
/**
 * Positions in the order the matcher prefers them as a rule's axis (matcher/axes.ts): each bound's
 * axisRank, the bounds few listings meet first.
 */
export const DEAL_AXIS_PREFERENCE: readonly number[] = DEAL_BOUNDS.map((b, i) => ({ i, rank: b.axisRank }))
  .sort((a, b) => a.rank - b.rank)
  .map((b) => b.i);

/** Every position NaN: what a listing without deal facts has. */
const NO_VALUES: readonly number[] = FACTS.map(() => NaN);
/** The positions of each fact (a fact can back a minimum and a maximum). */
const POSITIONS: ReadonlyMap<string, readonly number[]> = new Map(
  [...new Set(FACTS)].map((fact) => [fact, FACTS.flatMap((f, i) => (f === fact ? [i] : []))]),
);

/** The listing's values in DEAL_BOUNDS order; NaN where the listing does not have it. */
export function dealValuesOf(d: DealFacts): number[] {
  // A plain array filled field by field: a Float64Array per listing (a native buffer each) and
  // Float64Array.from with a function per position cost a microsecond a listing between them, on
  // the feed's hot path. The facts a listing has (a few) are visited, not every position: a
  // lookup per position by a varying key on objects of varying shape was a third of preparing a
  // listing.
  const out = NO_VALUES.slice();
  for (const fact in d) {
    const at = POSITIONS.get(fact);
    if (at === undefined) continue;
    const value = d[fact as DealFact] ?? NaN;
    for (const i of at) out[i] = value;
  }
  return out;
}

/** Each deal filter's position in DEAL_BOUNDS. */
const FILTER_POSITION: ReadonlyMap<string, number> = new Map(DEAL_BOUNDS.map((b, i) => [b.key, i]));

/** The rule's bounds in DEAL_BOUNDS order (NaN: not set); null for a rule without any (most rules). */
export function compileDeal(f: object): Float64Array | null {
  // The filters a rule has (a few) are visited, as dealValuesOf visits a listing's facts: asking
  // each rule for every deal filter by name, on rules of many shapes, was ~0.45 us a rule in the
  // app's million-rule load (a twentieth of it), nearly all spent learning the rule had none.
  let bounds: Float64Array | null = null;
  for (const filter in f) {
    const at = FILTER_POSITION.get(filter);
    const value: unknown = (f as Record<string, unknown>)[filter];
    if (at === undefined || typeof value !== "number") continue;
    bounds ??= new Float64Array(DEAL_BOUNDS.length).fill(NaN);
    bounds[at] = value;
  }
  return bounds;
}

/** The bound at position i met by the value (meetsBound, its maximum or minimum by position). */
export const meetsDealBound = (i: number, bound: number, value: number): boolean =>
  meetsBound(IS_MAX[i] === true, bound, value);

/** The last value meeting the bound at position i (boundLimit, by position). */
export const dealLimit = (i: number, bound: number): number => boundLimit(IS_MAX[i] === true, bound);

/** Every set bound is met; a NaN value (the listing lacks it) meets none. */
export function matchesDeal(bounds: ArrayLike<number>, values: ArrayLike<number>): boolean {
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i] as number;
    if (b !== b) continue;
    if (!meetsDealBound(i, b, values[i] as number)) return false;
  }
  return true;
}
