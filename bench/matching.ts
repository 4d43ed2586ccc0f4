// Benchmark of the watch-rule matcher index against linear scans, on seeded, realistic rules and listings.
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Listing } from "../src/market/schemas.ts";
import {
  compileRules,
  createMatcherIndex,
  MatchIds,
  linearScanCompiled,
  linearScanMatch,
} from "../src/watch/matcher/matcher.ts";
import { createMarket, generateListings, generateRules } from "./lib/market.ts";

export interface MatchingBenchRow {
  rules: number;
  /** Mean cost per listing, microseconds. */
  indexUs: number;
  linearUs: number;
  linearCompiledUs: number;
  /** linearCompiledUs / indexUs: the index against the strongest linear scan. */
  speedup: number;
  matchesPerListing: number;
  heapUsedMb: number;
  /** Resident set size after building the index, MB (the number a 250 MB container limit sees). */
  rssMb: number;
  /** Heap growth from building the index, MB (with ArrayBuffer contents, which live outside the heap). */
  indexHeapMb: number;
}

/**
 * Microseconds of CPU per listing, averaged over at least minMs of passes. CPU time rather than
 * wall time: on a shared machine other processes stretch wall time but not this process's CPU
 * time, and averaging over many passes evens out the kernel's coarse CPU accounting.
 */
export function timePerListing(
  listings: readonly Listing[],
  fn: (l: Listing) => unknown,
  minMs = 200,
): number {
  // Warm up so the JIT has compiled the hot loop before timing.
  for (let i = 0; i < Math.min(200, listings.length); i++) fn(listings[i] as Listing);
  let passes = 0;
  const start = process.cpuUsage();
  let usedUs = 0;
  do {
    for (const l of listings) fn(l);
    passes++;
    const used = process.cpuUsage(start);
    usedUs = used.user + used.system;
  } while (usedUs / 1000 < minMs);
  return usedUs / (passes * listings.length);
}

/** A full GC before each reading, so heap numbers are live data rather than garbage timing. */
export const collectGarbage: () => void = (() => {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  // Without --expose-gc: enable the flag at run time and take gc from a fresh context.
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("gc");
  return typeof gc === "function" ? (gc as () => void) : () => {};
})();

/** The JS heap plus ArrayBuffer contents (the index keeps its numbers in typed arrays). */
export function heapMb(): number {
  collectGarbage();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1024 / 1024;
}

export function runMatchingBench(
  opts: { ruleCounts?: readonly number[]; listings?: number; seed?: number; minMs?: number } = {},
): MatchingBenchRow[] {
  const { ruleCounts = [1000, 10000, 100000], listings: listingCount = 2000, seed = 42, minMs = 200 } = opts;
  const rows: MatchingBenchRow[] = [];
  for (const count of ruleCounts) {
    const market = createMarket(seed);
    const rules = generateRules(market, count);
    const listings = generateListings(market, listingCount);
    const before = heapMb();
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    // As a load does: the lists sorted and packed, the room adding used given back.
    index.settle();
    const heapUsedMb = heapMb();
    const rssMb = process.memoryUsage().rss / 1024 / 1024;
    let matches = 0;
    for (const l of listings) matches += index.matchIds(l).length;
    const found = new MatchIds();
    const indexUs = timePerListing(listings, (l) => index.matchInto(l, found), minMs);
    // Linear scans are slow at 100k rules; a few hundred listings give a stable mean.
    const sample = listings.slice(0, Math.max(50, Math.min(listings.length, Math.floor(1e7 / count))));
    const compiled = compileRules(rules);
    const linearCompiledUs = timePerListing(sample, (l) => linearScanCompiled(compiled, l), minMs);
    const linearUs = timePerListing(sample, (l) => linearScanMatch(rules, l), minMs);
    rows.push({
      rules: count,
      indexUs,
      linearUs,
      linearCompiledUs,
      speedup: linearCompiledUs / indexUs,
      matchesPerListing: matches / listings.length,
      heapUsedMb,
      rssMb,
      indexHeapMb: heapUsedMb - before,
    });
  }
  return rows;
}

function printTable(rows: readonly MatchingBenchRow[]): void {
  const fmt = (n: number, d = 2) => n.toFixed(d).padStart(10);
  console.log("rules      index µs linear µs compiled µs   speedup matches/l   heap MB    rss MB  index MB");
  for (const r of rows) {
    console.log(
      `${String(r.rules).padEnd(8)}${fmt(r.indexUs)}${fmt(r.linearUs, 1)}${fmt(r.linearCompiledUs, 1)}${fmt(r.speedup, 0)}x` +
        `${fmt(r.matchesPerListing)}${fmt(r.heapUsedMb, 1)}${fmt(r.rssMb, 1)}${fmt(r.indexHeapMb, 1)}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = runMatchingBench();
  printTable(rows);
  const last = rows[rows.length - 1];
  if (last && (last.indexUs > 20 || last.speedup < 100)) {
    console.log(
      `target missed at ${last.rules} rules: want <= 20 µs per listing and >= 100x the linear scan`,
    );
    process.exitCode = 1;
  }
}
