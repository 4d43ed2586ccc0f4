// What a match returns: the feed's reused buffer of refs (MatchIds) and, for tests and tools, rule refs.
import type { RuleSlots } from "./slots.ts";

/**
 * The rules one match found, `count` of them, as refs: a rule's numeric id below REF_LIMIT, else
 * -(slot + 1) (RuleSlots.pureIdOf's form, which a bound-decided entry's code holds). The scan
 * writes a ref into a 32-bit array and moves on: no branch, call or JS array store per match. A
 * ref becomes its id when read (idAt), from the index that wrote it. The feed keeps one and
 * matches listing after listing into it: the array is reused, and grows, never shrinks.
 */
export class MatchIds {
  refs = new Int32Array(256);
  count = 0;
  /** The slots of the index that matched last (its refs name their slots). */
  private from: RuleSlots | null = null;

  /** Starts a match by the index whose slots are `slots`. */
  reset(slots: RuleSlots): void {
    this.count = 0;
    this.from = slots;
  }

  /** The refs array with room for `n` more after count (a scan reserves its part's length, then writes freely). */
  reserve(n: number): Int32Array {
    if (this.count + n > this.refs.length) {
      const grown = new Int32Array(Math.max(this.count + n, this.refs.length * 2));
      grown.set(this.refs.subarray(0, this.count));
      this.refs = grown;
    }
    return this.refs;
  }

  add(ref: number): void {
    this.reserve(1)[this.count++] = ref;
  }

  /** The id of match i: a number for a numeric id, else the id as given. */
  idAt(i: number): number | string {
    const ref = this.refs[i] as number;
    return ref >= 0 ? ref : (this.from as RuleSlots).keyAt(-ref - 1);
  }

  /** Every id found, in a new array. */
  ids(): Array<number | string> {
    return Array.from({ length: this.count }, (_, i) => this.idAt(i));
  }
}

/** What a match returns: enough to queue an alert. */
export interface RuleRef {
  readonly id: string;
  readonly userId: string;
}
