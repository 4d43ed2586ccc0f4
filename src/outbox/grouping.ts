// One alert per listing per user and destination: the rules that matched it grouped into one payload, and old per-rule alerts merged for lists.
import { MAX_OTHER_RULES, type ListingAlert, type RuleRef, type SingleAlert } from "./payload.ts";

/**
 * Groups items that share a key, keeping the order in which each key first appears (so a
 * listing's fan-out still goes out in the order its first rule was written).
 */
export function groupInOrder<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return [...groups.values()];
}

/** The alert of the group's first rule, naming the others (the first few; the rest counted). */
export function withOtherRules(alert: ListingAlert, others: readonly RuleRef[]): ListingAlert {
  const seen = new Set([alert.ruleId]);
  const unique = others.filter((r) => !seen.has(r.ruleId) && (seen.add(r.ruleId), true));
  if (unique.length === 0) return alert;
  const named = unique.slice(0, MAX_OTHER_RULES);
  return {
    ...alert,
    otherRules: named,
    ...(unique.length > named.length ? { otherRulesOmitted: unique.length - named.length } : {}),
  };
}

/** Every rule an alert stands for: its own, the named others, and how many more. */
export function rulesOf(alert: ListingAlert): { named: RuleRef[]; omitted: number } {
  return {
    named: [{ ruleId: alert.ruleId, ruleName: alert.ruleName }, ...(alert.otherRules ?? [])],
    omitted: alert.otherRulesOmitted ?? 0,
  };
}

/**
 * Listing alerts about the same listing folded into the first of them (its rules merged), other
 * alerts untouched: a list of alerts (the digest, /alerts recent) counts listings, not rule
 * matches, even for alerts written one per rule or sent to two destinations. `replace` puts the
 * merged alert back into its item.
 */
export function mergeSameListing<T>(
  items: readonly T[],
  alertOf: (item: T) => SingleAlert | undefined,
  replace: (item: T, alert: ListingAlert) => T,
): T[] {
  const firstOf = new Map<string, number>();
  const kept: T[] = [];
  const merged: Array<ListingAlert | undefined> = [];
  for (const item of items) {
    const a = alertOf(item);
    if (a?.kind !== "listing") {
      kept.push(item);
      merged.push(undefined);
      continue;
    }
    const at = firstOf.get(a.listingId);
    const first = at === undefined ? undefined : merged[at];
    if (at === undefined || first === undefined) {
      firstOf.set(a.listingId, kept.length);
      kept.push(item);
      merged.push(a);
      continue;
    }
    const before = rulesOf(first);
    const added = rulesOf(a);
    const all = [...before.named.slice(1), ...added.named];
    const { otherRules: _named, otherRulesOmitted: _omitted, ...bare } = first;
    const folded = withOtherRules(bare, all);
    const omitted = before.omitted + added.omitted + (folded.otherRulesOmitted ?? 0);
    merged[at] = { ...folded, ...(omitted > 0 ? { otherRulesOmitted: omitted } : {}) };
  }
  return kept.map((item, i) => {
    const a = merged[i];
    return a === undefined || a === alertOf(item) ? item : replace(item, a);
  });
}
