// Where the matcher's new rules wait until the next match: one flat area, moved into the buckets at once.
import type { Bucket } from "./buckets.ts";
import { E, E_SLOT, type RuleSlots } from "./slots.ts";

/**
 * Entries added since the last match, with the bucket and axis each goes to. Adding is a copy
 * into one Float64Array (no per-bucket growth: at a million rules, growing tens of thousands of
 * lists one rule at a time cost seconds and fragmented memory); flush sizes every list once,
 * copies, sorts, and gives the area back. A removed rule still waiting is marked dead (its slot
 * number becomes -1) and skipped; the waiting flags spare a scan when removing any other rule.
 */
export class Staging {
  private entries: Float64Array;
  private buckets: Bucket[] = [];
  private axes: Uint8Array;
  private count = 0;
  /** 1 for each slot with entries waiting, so removing any other rule skips the scan. */
  private waiting: Uint8Array;

  /** `capacity`: entries to make room for at once (a full load knows its rule count). */
  constructor(capacity: number) {
    this.entries = new Float64Array(Math.max(16, capacity) * E);
    this.axes = new Uint8Array(Math.max(16, capacity));
    this.waiting = new Uint8Array(Math.max(16, capacity));
  }

  get size(): number {
    return this.count;
  }

  push(bucket: Bucket, axis: number, entry: Float64Array): void {
    if (this.count === this.axes.length) this.grow();
    const o = this.count * E;
    for (let k = 0; k < E; k++) this.entries[o + k] = entry[k] as number;
    this.buckets.push(bucket);
    this.axes[this.count] = axis;
    this.count++;
    bucket.size++;
    const slot = entry[E_SLOT] as number;
    if (slot >= this.waiting.length) {
      const waiting = new Uint8Array(Math.max(slot + 1, Math.ceil(this.waiting.length * 1.5)));
      waiting.set(this.waiting);
      this.waiting = waiting;
    }
    this.waiting[slot] = 1;
  }

  /** Marks the slot's waiting entries dead; returns the buckets they were going to. O(waiting). */
  drop(slot: number): Bucket[] {
    const out: Bucket[] = [];
    if (this.waiting[slot] !== 1) return out;
    this.waiting[slot] = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.entries[i * E + E_SLOT] !== slot) continue;
      this.entries[i * E + E_SLOT] = -1;
      const bucket = this.buckets[i] as Bucket;
      bucket.size--;
      out.push(bucket);
    }
    return out;
  }

  /** Moves every live entry into its bucket, sorted, and empties the area. */
  flush(slots: RuleSlots): void {
    const touched: Bucket[] = [];
    const live = (i: number) => (this.entries[i * E + E_SLOT] as number) >= 0;
    for (let i = 0; i < this.count; i++) {
      if (!live(i)) continue;
      const bucket = this.buckets[i] as Bucket;
      if (bucket.reserve(this.axes[i] as number)) touched.push(bucket);
    }
    for (const bucket of touched) bucket.open();
    for (let i = 0; i < this.count; i++) {
      if (!live(i)) continue;
      (this.buckets[i] as Bucket).put(this.axes[i] as number, this.entries, i * E);
      this.waiting[this.entries[i * E + E_SLOT] as number] = 0;
    }
    for (const bucket of touched) bucket.close(slots);
    // Back to a small area: the next adds are a few changes, not a load.
    this.count = 0;
    this.buckets = [];
    this.entries = new Float64Array(16 * E);
    this.axes = new Uint8Array(16);
  }

  private grow(): void {
    const n = Math.ceil(this.axes.length * 1.5);
    const entries = new Float64Array(n * E);
    entries.set(this.entries);
    this.entries = entries;
    const axes = new Uint8Array(n);
    axes.set(this.axes);
    this.axes = axes;
  }
}
