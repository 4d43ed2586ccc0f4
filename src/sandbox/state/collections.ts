// Index helpers the store keeps its maps and sorted lists with.
import type { ListingRec } from "./records.ts";

/** Index of the first listing whose seq is >= seq. */
export function lowerBound(a: readonly ListingRec[], seq: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[mid] as ListingRec).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
