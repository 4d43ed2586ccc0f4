// The scheduler's queue: expiries and settlements ordered by due time, then by when they were scheduled.
export interface Scheduled {
  at: number;
  seq: number;
  run: (at: number) => void;
}

/** A binary min-heap by (at, seq): thousands of pending expiries cost O(log n) each. */
export class EventQueue {
  private heap: Scheduled[] = [];
  get size(): number {
    return this.heap.length;
  }
  push(e: Scheduled): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i] as Scheduled, h[p] as Scheduled)) break;
      [h[i], h[p]] = [h[p] as Scheduled, h[i] as Scheduled];
      i = p;
    }
  }
  peek(): Scheduled | undefined {
    return this.heap[0];
  }
  pop(): Scheduled | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l] as Scheduled, h[m] as Scheduled)) m = l;
        if (r < h.length && before(h[r] as Scheduled, h[m] as Scheduled)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Scheduled, h[i] as Scheduled];
        i = m;
      }
    }
    return top;
  }
}

const before = (a: Scheduled, b: Scheduled): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);
