// The scan of a bound-decided part: its entries' fixed layout, the pair (code and price ceiling) each one holds, and the loop that collects a listing's matches.
import type { MatchIds } from "./matchIds.ts";

/**
 * The scan's fixed numbers: numbers per entry of a plain part and of a float part, where the pair
 * and the float range sit, and a code's kind bits (slots.ts' KIND_BITS; the matcher's tests fail
 * when the two differ). An enum because each use of one is a literal once transpiled, where each
 * use of a module constant is, in optimised code, a load and a check: the scan used a dozen per
 * entry.
 */
const enum Stride {
  PRICE = 1,
  PLAIN = 2,
  FLOAT = 4,
}
const enum At {
  PAIR = 1,
  MIN_FLOAT = 2,
  MAX_FLOAT = 3,
}
const enum Code {
  KIND_BITS = 4,
  KIND_MASK = 15,
}
export const PN: number = Stride.PLAIN;
export const P: number = Stride.FLOAT;
/** Numbers per entry of the price axis' plain part: the pair alone (axes.ts' strideOf). */
export const PRICE_STRIDE: number = Stride.PRICE;
/** Where the pair sits in a plain or float entry, after its bound. */
export const PAIR_AT: number = At.PAIR;
/**
 * The pair's price for "no ceiling", and the ceilings a pair holds (0 to PRICE_NONE - 1 cents,
 * about $21 million; a higher ceiling makes the rule a full entry). Below 0x7ff00000, so the pair
 * as a double is never a NaN: copied as a number, its bits survive.
 */
const PRICE_NONE = 0x7fefffff;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/**
 * Which word of a pair holds the code: the low one, so the price, always small, sits where a
 * double's exponent is. The price is the other word: the code's index xor 1. A scan reads this
 * once, into a local.
 */
const CODE_WORD = LITTLE_ENDIAN ? 0 : 1;

/** Writes a pair (code, price ceiling) as the double at `o` of a list whose words are `w`. */
export function writePair(w: Int32Array, o: number, code: number, maxPrice: number): void {
  const at = (o << 1) | CODE_WORD;
  w[at] = code;
  w[at ^ 1] = maxPrice === Infinity ? PRICE_NONE : maxPrice;
}

/** The price ceiling of the pair at double `o` (Infinity: none), as a header's first bound holds it. */
export function pairCeiling(w: Int32Array, o: number): number {
  const price = w[((o << 1) | CODE_WORD) ^ 1] as number;
  return price === PRICE_NONE ? Infinity : price;
}

const PAIR_SCRATCH = new Float64Array(1);
const PAIR_WORDS = new Int32Array(PAIR_SCRATCH.buffer);
/** The code of a pair read as a number (the double after a bound-decided entry's bound). */
export function codeOfPair(pair: number): number {
  PAIR_SCRATCH[0] = pair;
  return PAIR_WORDS[CODE_WORD] as number;
}

/** Whether a price ceiling fits a pair (else the rule is a full entry). */
export const fitsPair = (maxPrice: number): boolean =>
  maxPrice === Infinity || (Number.isInteger(maxPrice) && maxPrice >= 0 && maxPrice < PRICE_NONE);

/**
 * A listing's price as pairs compare it: at most PRICE_NONE, which passes every "no ceiling" and
 * fails every ceiling a pair holds, as the price itself does.
 */
export const pairPriceOf = (price: number): number => (price > PRICE_NONE ? PRICE_NONE : Math.ceil(price));

/**
 * Appends the ids of the bound-decided entries of one part (from o to n, integers; `stride`: PN
 * for a plain part, P for a float part, 1 for the price axis' plain part: strideOf) that the
 * listing satisfies: one pass that stops at the first ceiling the listing's `key` (keyFor) is
 * above, deciding each entry on the way by its price ceiling (`price`: pairPriceOf's), a float
 * part's float range, and its kind (`kinds`: ListingFacts.kinds); a seed run passes -Infinity,
 * its end found before. This is the hot path: every number it uses per entry is a local or a
 * literal (the enums above), and the per-entry steps are written out in its loops (an inlined
 * call to a module's function costs a load and a check of the function at every entry).
 *
 * Each loop takes four entries a step while the fourth passes its ceiling (ceilings descend, so
 * the three before it pass too; the first is tested as well), then one a step to the stop.
 * Optimised code checks and reloads every typed array a loop reads at each step (after the
 * step's interrupt check): four entries a step pay that once, 10-25% less per entry.
 */
export function collectPure(
  d: Float64Array,
  w: Int32Array,
  o: number,
  n: number,
  stride: number,
  key: number,
  price: number,
  float: number,
  kinds: number,
  out: MatchIds,
): void {
  // Room for every entry of the part: the loops then write refs without a check.
  const refs = out.reserve((n - o) / stride);
  const cw = CODE_WORD;
  let count = out.count;
  if (stride === Stride.PRICE) {
    // The price axis' plain part: the pair's price is the bound, passed by the listing's price.
    for (; o + 3 < n; o += 4) {
      const at = (o << 1) | cw;
      if (!(price <= (w[(at + 6) ^ 1] as number) && price <= (w[at ^ 1] as number))) break;
      const c0 = w[at] as number;
      const c1 = w[at + 2] as number;
      const c2 = w[at + 4] as number;
      const c3 = w[at + 6] as number;
      refs[count] = c0 >> Code.KIND_BITS;
      count += (kinds >>> (c0 & Code.KIND_MASK)) & 1;
      refs[count] = c1 >> Code.KIND_BITS;
      count += (kinds >>> (c1 & Code.KIND_MASK)) & 1;
      refs[count] = c2 >> Code.KIND_BITS;
      count += (kinds >>> (c2 & Code.KIND_MASK)) & 1;
      refs[count] = c3 >> Code.KIND_BITS;
      count += (kinds >>> (c3 & Code.KIND_MASK)) & 1;
    }
    for (; o < n; o++) {
      const at = (o << 1) | cw;
      if (!(price <= (w[at ^ 1] as number))) break;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += (kinds >>> (code & Code.KIND_MASK)) & 1;
    }
  } else if (stride === Stride.PLAIN) {
    // Branch-free per entry: each ref is written, and kept (count moves on) only when the entry
    // passes. A listing meeting thousands of rules fails a price ceiling or a kind here and there
    // at random: as branches, each such entry cost a misprediction, more than the rest of its step.
    for (; o + 3 * Stride.PLAIN < n; o += 4 * Stride.PLAIN) {
      if (!(key <= (d[o + 3 * Stride.PLAIN] as number) && key <= (d[o] as number))) break;
      const at = ((o + At.PAIR) << 1) | cw;
      const c0 = w[at] as number;
      const c1 = w[at + 2 * Stride.PLAIN] as number;
      const c2 = w[at + 4 * Stride.PLAIN] as number;
      const c3 = w[at + 6 * Stride.PLAIN] as number;
      refs[count] = c0 >> Code.KIND_BITS;
      count += ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (c0 & Code.KIND_MASK));
      refs[count] = c1 >> Code.KIND_BITS;
      count +=
        ((((w[(at + 2 * Stride.PLAIN) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c1 & Code.KIND_MASK));
      refs[count] = c2 >> Code.KIND_BITS;
      count +=
        ((((w[(at + 4 * Stride.PLAIN) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c2 & Code.KIND_MASK));
      refs[count] = c3 >> Code.KIND_BITS;
      count +=
        ((((w[(at + 6 * Stride.PLAIN) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c3 & Code.KIND_MASK));
    }
    for (; o < n && key <= (d[o] as number); o += Stride.PLAIN) {
      const at = ((o + At.PAIR) << 1) | cw;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (code & Code.KIND_MASK));
    }
  } else {
    // Number() of a comparison is a flag, not a branch: a float range fails at random (more than
    // half of the float entries a deal listing reads), so a branch mispredicted at every other one.
    for (; o + 3 * Stride.FLOAT < n; o += 4 * Stride.FLOAT) {
      if (!(key <= (d[o + 3 * Stride.FLOAT] as number) && key <= (d[o] as number))) break;
      const at = ((o + At.PAIR) << 1) | cw;
      const in0 =
        Number(float >= (d[o + At.MIN_FLOAT] as number)) & Number(float <= (d[o + At.MAX_FLOAT] as number));
      const in1 =
        Number(float >= (d[o + 1 * Stride.FLOAT + At.MIN_FLOAT] as number)) &
        Number(float <= (d[o + 1 * Stride.FLOAT + At.MAX_FLOAT] as number));
      const in2 =
        Number(float >= (d[o + 2 * Stride.FLOAT + At.MIN_FLOAT] as number)) &
        Number(float <= (d[o + 2 * Stride.FLOAT + At.MAX_FLOAT] as number));
      const in3 =
        Number(float >= (d[o + 3 * Stride.FLOAT + At.MIN_FLOAT] as number)) &
        Number(float <= (d[o + 3 * Stride.FLOAT + At.MAX_FLOAT] as number));
      const c0 = w[at] as number;
      const c1 = w[at + 2 * Stride.FLOAT] as number;
      const c2 = w[at + 4 * Stride.FLOAT] as number;
      const c3 = w[at + 6 * Stride.FLOAT] as number;
      refs[count] = c0 >> Code.KIND_BITS;
      count += in0 & ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (c0 & Code.KIND_MASK));
      refs[count] = c1 >> Code.KIND_BITS;
      count +=
        in1 &
        ((((w[(at + 2 * Stride.FLOAT) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c1 & Code.KIND_MASK));
      refs[count] = c2 >> Code.KIND_BITS;
      count +=
        in2 &
        ((((w[(at + 4 * Stride.FLOAT) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c2 & Code.KIND_MASK));
      refs[count] = c3 >> Code.KIND_BITS;
      count +=
        in3 &
        ((((w[(at + 6 * Stride.FLOAT) ^ 1] as number) - price) >>> 31) ^ 1) &
        (kinds >>> (c3 & Code.KIND_MASK));
    }
    for (; o < n && key <= (d[o] as number); o += Stride.FLOAT) {
      const inRange =
        Number(float >= (d[o + At.MIN_FLOAT] as number)) & Number(float <= (d[o + At.MAX_FLOAT] as number));
      const at = ((o + At.PAIR) << 1) | cw;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += inRange & ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (code & Code.KIND_MASK));
    }
  }
  out.count = count;
}
