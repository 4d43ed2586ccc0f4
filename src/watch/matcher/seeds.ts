// A seed list's directory: where a listing's seed runs in each part of a list filed by seed, found with one read rather than a bisection of thousands.
import { PART_FULL, PARTS, STRIDES } from "./axes.ts";
import { E_KEY } from "./slots.ts";

/** Seed lists shorter than this are bisected: their few probes fall in a few neighbouring lines. */
const DIRECTORY_FROM = 16;
/** Entries per directory cell, on average: a cell's range is a probe or two. */
const PER_CELL = 2;
/**
 * Numbers per directory cell: where each part's entries of the cell start, then per part a bit
 * per seed of the cell that has entries there. A listing reads a part only when its own seed's
 * bit is set: a cell holds a few seeds, and reading a part for its neighbours' entries was a
 * cache miss for nothing.
 */
const CELL = 2 * PARTS;

/**
 * A seed list's directory, for all its parts at once (`bounds`: where each part starts, then where
 * the last ends; STRIDES' numbers an entry; the seed first, or at E_KEY in the full part): its
 * head (the lowest seed, the width of a cell in seeds, the number of cells), which the list's
 * header holds, and its cells: per cell boundary the index of the first entry of each part whose
 * seed is at least the cell's first, and the cell's seeds present in each part (CELL), as 32-bit
 * integers after the lists (the arena's words). Null
 * for short lists. A listing's seed names its cell, and the cell's numbers bound its run in every
 * part: one read where bisecting a list of thousands reads a dozen places far apart, each one a
 * cache miss at a million rules.
 */
export function seedDirectory(
  list: Float64Array,
  bounds: readonly number[],
): { head: [number, number, number]; cells: Int32Array } | null {
  const seedAt = (part: number, i: number) =>
    list[
      (bounds[part] as number) + i * (STRIDES[part] as number) + (part === PART_FULL ? E_KEY : 0)
    ] as number;
  const counts = STRIDES.map(
    (stride, part) => ((bounds[part + 1] as number) - (bounds[part] as number)) / stride,
  );
  const total = counts.reduce((a, b) => a + b, 0);
  if (total < DIRECTORY_FROM) return null;
  let min = Infinity;
  let max = -Infinity;
  counts.forEach((count, part) => {
    if (count === 0) return;
    min = Math.min(min, seedAt(part, 0));
    max = Math.max(max, seedAt(part, count - 1));
  });
  const span = max - min + 1;
  const width = Math.max(1, Math.ceil(span / Math.ceil(total / PER_CELL)));
  const count = Math.ceil(span / width);
  const cells = new Int32Array(CELL * (count + 1));
  const next = [0, 0, 0];
  for (let c = 0; c <= count; c++) {
    const first = min + c * width;
    for (let part = 0; part < PARTS; part++) {
      let i = next[part] as number;
      while (i < (counts[part] as number) && seedAt(part, i) < first) i++;
      next[part] = i;
      cells[CELL * c + part] = i;
      // The cell's seeds present in the part, one bit each (every bit when a cell is too wide).
      let mask = width > 32 ? -1 : 0;
      for (let j = i; width <= 32 && j < (counts[part] as number) && seedAt(part, j) < first + width; j++)
        mask |= 1 << (seedAt(part, j) - first);
      cells[CELL * c + PARTS + part] = mask;
    }
  }
  return { head: [min, width, count], cells };
}

/**
 * A seed list's directory cell for `seed` (head: where the directory's head sits in `list`, the
 * list's header): -1 when the seed is below the lowest, above the highest or NaN (no part has a
 * run), else the cell, whose numbers bound the seed's run in every part (seedRun).
 */
export function seedCell(list: Float64Array, head: number, seed: number): number {
  const cell = Math.floor((seed - (list[head] as number)) / (list[head + 1] as number));
  return cell >= 0 && cell < (list[head + 2] as number) ? cell : -1;
}

/** The seed's bit in its cell's masks (head: as seedCell's; cell: seedCell's answer). */
export const seedBit = (list: Float64Array, head: number, seed: number, cell: number): number =>
  seed - ((list[head] as number) + cell * (list[head + 1] as number));

/**
 * Where the run of entries filed under `seed` starts in a seed list's part (from o to n, `stride`
 * numbers an entry, its seed at `at`, sorted ascending): the first entry whose seed is not below
 * it, or n when the directory shows the run is empty; the run goes on while entries carry the
 * seed. `cells`, `cell` and `bit`: where the list's directory cells start in the arena's
 * `words`, the seed's cell (seedCell) and its bit there (seedBit), which narrow the search; cells
 * -1: no directory (a short list, bisected whole). `part`: which part (PART_*).
 */
export function seedRun(
  list: Float64Array,
  words: Int32Array,
  o: number,
  n: number,
  stride: number,
  at: number,
  seed: number,
  cells: number,
  cell: number,
  bit: number,
  part: number,
): number {
  let lo = 0;
  let hi = ((n - o) / stride) | 0;
  if (cells >= 0) {
    const at = cells + CELL * cell;
    // The seed has no entry in this part: its run is empty, and the part is not read.
    if ((((words[at + PARTS + part] as number) >>> bit) & 1) === 0) return n;
    lo = words[at + part] as number;
    hi = words[at + CELL + part] as number;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[o + mid * stride + at] as number) < seed) lo = mid + 1;
    else hi = mid;
  }
  return o + lo * stride;
}
