// A seed list's directory: where a listing's seed runs in each part of a list filed by seed, found with one read rather than a bisection of thousands.
import { PART_FULL, PARTS, STRIDES } from "./axes.ts";
import { E_KEY } from "./slots.ts";

/** Seed lists shorter than this are bisected: their few probes fall in a few neighbouring lines. */
const DIRECTORY_FROM = 16;
/** Entries per directory cell, on average: a cell's range is a probe or two. */
const PER_CELL = 2;

/**
 * A seed list's directory, for all its parts at once (`bounds`: where each part starts, then where
 * the last ends; STRIDES' numbers an entry; the seed first, or at E_KEY in the full part): the
 * lowest seed, the width of a cell in seeds, the number of cells, then per cell boundary the index
 * of the first entry of each part whose seed is at least the cell's first. Null for short lists. A
 * listing's seed names its cell, and the cell's numbers bound its run in each part: one read where
 * bisecting a list of thousands reads a dozen places far apart, each one a cache miss at a million
 * rules.
 */
export function seedDirectory(list: Float64Array, bounds: readonly number[]): Int32Array | null {
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
  const cells = Math.ceil(span / width);
  const dir = new Int32Array(3 + PARTS * (cells + 1));
  dir[0] = min;
  dir[1] = width;
  dir[2] = cells;
  const next = [0, 0, 0];
  for (let c = 0; c <= cells; c++) {
    const first = min + c * width;
    for (let part = 0; part < PARTS; part++) {
      let i = next[part] as number;
      while (i < (counts[part] as number) && seedAt(part, i) < first) i++;
      next[part] = i;
      dir[3 + PARTS * c + part] = i;
    }
  }
  return dir;
}

/**
 * A seed list's directory cell for `seed` (dir: where the directory sits in `list`): -1 when the
 * seed is below the lowest, above the highest or NaN (no part has a run), else the cell, whose
 * numbers bound the seed's run in every part (seedRun).
 */
export function seedCell(list: Float64Array, dir: number, seed: number): number {
  const cell = Math.floor((seed - (list[dir] as number)) / (list[dir + 1] as number));
  return cell >= 0 && cell < (list[dir + 2] as number) ? cell : -1;
}

/**
 * Where the run of entries filed under `seed` starts in a seed list's part (from o to n, `stride`
 * numbers an entry, its seed at `at`, sorted ascending): the first entry whose seed is not below
 * it, or n when the directory shows the run is empty; the run goes on while entries carry the
 * seed. `dir` and `cell`: the list's
 * directory and the seed's cell in it (seedCell), which narrow the search; dir -1: no directory
 * (a short list, bisected whole). `part`: which part (PART_*).
 */
export function seedRun(
  list: Float64Array,
  o: number,
  n: number,
  stride: number,
  at: number,
  seed: number,
  dir: number,
  cell: number,
  part: number,
): number {
  let lo = 0;
  let hi = ((n - o) / stride) | 0;
  if (dir >= 0) {
    lo = (list[dir + 3 + PARTS * cell + part] as number) | 0;
    hi = (list[dir + 3 + PARTS * (cell + 1) + part] as number) | 0;
    // No entry of this part in the seed's cell: its run is empty, and the part is not read.
    if (lo === hi) return n;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[o + mid * stride + at] as number) < seed) lo = mid + 1;
    else hi = mid;
  }
  return o + lo * stride;
}
