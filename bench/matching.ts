// Benchmark of the watch-rule matcher index against linear scans, on seeded, realistic rules and listings.
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { z } from "zod";
import { Listing } from "../src/market/schemas.ts";
import type { RuleFilters } from "../src/alerts/ruleFilters.ts";
import { seededRandom } from "../src/util/rng.ts";
import {
  compileRules,
  createMatcherIndex,
  linearScanCompiled,
  linearScanMatch,
  type MatcherRule,
} from "../src/alerts/matcher.ts";

type RawListing = z.input<typeof Listing>;

/** Draws ranks 0..n-1 with probability ~ 1/(rank+1)^s: a few items get most of the attention. */
function zipf(n: number, s: number, rnd: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / Math.pow(i + 1, s);
    cdf[i] = sum;
  }
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const WEAPONS = [
  "Falcon Rifle",
  "Viper SMG",
  "Onyx Pistol",
  "Heron Sniper",
  "Badger Shotgun",
  "Lynx Carbine",
  "Mako Rifle",
  "Wasp SMG",
  "Raven Pistol",
  "Bison LMG",
  "Cobra Pistol",
  "Kestrel Rifle",
  "Jackal SMG",
  "Puma Revolver",
  "Otter Shotgun",
  "Hornet Carbine",
  "Stag Sniper",
  "Ibis Pistol",
  "Marten Rifle",
  "Gecko SMG",
  "Talon Knife",
  "Crescent Knife",
  "Fang Knife",
  "Hook Knife",
  "Sport Gloves",
  "Driver Gloves",
  "Moth Pistol",
  "Drake Rifle",
  "Shrike SMG",
  "Tapir Shotgun",
  "Yak LMG",
  "Coyote Carbine",
  "Egret Sniper",
  "Newt Pistol",
  "Quail Rifle",
  "Sable SMG",
];
const SKIN_A = [
  "Ember",
  "Frost",
  "Neon",
  "Rust",
  "Jade",
  "Crimson",
  "Azure",
  "Storm",
  "Night",
  "Gold",
  "Ash",
  "Coral",
];
const SKIN_B = [
  "Tide",
  "Web",
  "Fade",
  "Bloom",
  "Circuit",
  "Veil",
  "Drift",
  "Marble",
  "Howl",
  "Lotus",
  "Scale",
  "Pulse",
];
const WEARS: ReadonlyArray<readonly [string, number, number]> = [
  ["Pristine", 0, 0.07],
  ["Light Use", 0.07, 0.15],
  ["Field Worn", 0.15, 0.38],
  ["Well Worn", 0.38, 0.45],
  ["Scarred", 0.45, 1],
];

export interface Skin {
  weapon: string;
  defIndex: number;
  paintIndex: number;
  name: string;
  /** Reference price of the Field Worn version, in cents. */
  basePrice: number;
}

export interface Market {
  skins: Skin[];
  pickSkin: () => Skin;
  pickSticker: () => number;
  rnd: () => number;
}

/** ~36 weapons x 30 skins x 5 wears (x statcounter) = ~10k item names, popularity Zipf-distributed. */
export function createMarket(seed: number): Market {
  const rnd = seededRandom(seed);
  const skins: Skin[] = [];
  WEAPONS.forEach((weapon, w) => {
    for (let k = 0; k < 30; k++) {
      const paintIndex = 1 + ((w * 37 + k * 11) % 1200);
      const a = SKIN_A[(w + k) % SKIN_A.length] as string;
      const b = SKIN_B[(w * 3 + k) % SKIN_B.length] as string;
      const basePrice = Math.round(Math.exp(Math.log(20) + rnd() * Math.log(200_000 / 20)));
      skins.push({
        weapon,
        defIndex: w < 20 ? w + 1 : 500 + w,
        paintIndex,
        name: `${a} ${b} ${k}`,
        basePrice,
      });
    }
  });
  // Shuffle so popularity does not follow catalogue order.
  for (let i = skins.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [skins[i], skins[j]] = [skins[j] as Skin, skins[i] as Skin];
  }
  const skinRank = zipf(skins.length, 0.9, rnd);
  const stickerRank = zipf(3000, 1.1, rnd);
  return { skins, pickSkin: () => skins[skinRank()] as Skin, pickSticker: () => 1000 + stickerRank(), rnd };
}

function wearOf(rnd: () => number): readonly [string, number, number] {
  return WEARS[Math.min(WEARS.length - 1, Math.floor(rnd() * WEARS.length))] as readonly [
    string,
    number,
    number,
  ];
}

/** Reference price of one wear of a skin: better wear, higher price. */
function referenceOf(skin: Skin, wearLow: number, statcounter: boolean): number {
  return Math.round(skin.basePrice * (statcounter ? 2 : 1) * (1.07 - wearLow));
}

/** The cheapest version of a skin (worst wear, no statcounter). */
function cheapestOf(skin: Skin): number {
  return referenceOf(skin, 0.45, false);
}

function marketName(skin: Skin, wear: string, statcounter: boolean): string {
  return `${statcounter ? "Statcounter " : ""}${skin.weapon} | ${skin.name} (${wear})`;
}

/** One sellable item name of the market: a skin in one wear, with its float range and reference price. */
export interface CatalogItem {
  name: string;
  skin: Skin;
  statcounter: boolean;
  minFloat: number;
  maxFloat: number;
  /** Reference price in cents (what rules discount against). */
  reference: number;
}

/** Every item name rules and listings can use, keyed by lowercase name (rules match names case-insensitively). */
export function catalogOf(market: Market): Map<string, CatalogItem> {
  const out = new Map<string, CatalogItem>();
  for (const skin of market.skins) {
    for (const [wear, lo, hi] of WEARS) {
      for (const statcounter of [false, true]) {
        const name = marketName(skin, wear, statcounter);
        out.set(name.toLowerCase(), {
          name,
          skin,
          statcounter,
          minFloat: lo,
          maxFloat: hi,
          reference: referenceOf(skin, lo, statcounter),
        });
      }
    }
  }
  return out;
}

/**
 * Rules as users write them: mostly one item with a price ceiling below its reference (a deal),
 * some seed or float hunts by def/paint index, a few sticker and keychain watches, and a small
 * number of broad "anything far below reference" rules. Tuned so a listing matches a handful of
 * rules at 100k rules, as an alert feed would (hundreds per listing would be spam, not alerts).
 * `itemless`: the share of rules naming no item, drawn from a wider mix (itemlessRule); without it
 * the draws are the historical ones, so the other scenarios' rule sets stay the same.
 */
export function generateRules(
  market: Market,
  count: number,
  opts: { itemless?: number } = {},
): MatcherRule[] {
  const { rnd } = market;
  const rules: MatcherRule[] = [];
  const deal = (price: number) => Math.max(3, Math.round(price * (0.55 + rnd() * 0.4)));
  const seeds = () => Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => Math.floor(rnd() * 1001));
  const itemless = opts.itemless;
  for (let i = 0; i < count; i++) {
    const skin = market.pickSkin();
    const [wearName, lo, hi] = wearOf(rnd);
    let f: RuleFilters = {};
    const kind = itemless === undefined ? rnd() : rnd() < itemless ? 1 : 0;
    if (kind < 0.75) {
      const statcounter = rnd() < 0.1;
      f.item = marketName(skin, wearName, statcounter);
      // Every item rule hunts something: a price, a discount or a float (else it is an "all listings" feed).
      const hunt = rnd();
      if (hunt < 0.7) f.max_price = deal(referenceOf(skin, lo, statcounter));
      if (hunt >= 0.5 || rnd() < 0.2) f.min_discount = 5 + Math.floor(rnd() * 25);
      if (hunt >= 0.85 || rnd() < 0.25) {
        f.min_float = Math.round(lo * 1000) / 1000;
        f.max_float = Math.round((lo + rnd() * (hi - lo)) * 1000) / 1000;
      }
      if (rnd() < 0.05) f.paint_seeds = seeds();
    } else if (itemless !== undefined) {
      f = itemlessRule(market, skin, deal, seeds);
    } else if (kind < 0.87) {
      f.def_index = skin.defIndex;
      f.paint_index = skin.paintIndex;
      if (rnd() < 0.4) f.paint_seeds = seeds();
      else f.max_price = deal(cheapestOf(skin));
    } else if (kind < 0.91) {
      // Low-float or seed hunts across every skin of a weapon.
      f.def_index = skin.defIndex;
      if (rnd() < 0.5) f.max_float = Math.round(rnd() * 0.01 * 10000) / 10000;
      else f.paint_seeds = seeds();
    } else if (kind < 0.92) {
      f.paint_index = skin.paintIndex;
      f.max_price = deal(cheapestOf(skin));
    } else if (kind < 0.97) {
      f.stickers = stickerWatch(rnd);
      if (rnd() < 0.5) f.max_price = 100 * (5 + Math.floor(rnd() * 200));
    } else if (kind < 0.995) {
      f.keychains = [Math.floor(rnd() * 300)];
      if (rnd() < 0.5) f.max_price = 100 * (5 + Math.floor(rnd() * 200));
    } else {
      f.min_discount = 25 + Math.floor(rnd() * 30);
      f.max_price = 100 * (1 + Math.floor(rnd() * 100));
    }
    if (rnd() < 0.1) f.type = rnd() < 0.5 ? "buy_now" : "auction";
    rules.push({
      id: String(i + 1),
      userId: String(100_000_000_000_000_000n + BigInt(i % 5000)),
      filters: f,
    });
  }
  return rules;
}

/** Sticker collectors watch any sticker, rare ones as often as common ones. */
function stickerWatch(rnd: () => number): NonNullable<RuleFilters["stickers"]> {
  return [{ id: 1000 + Math.floor(rnd() * 3000), ...(rnd() < 0.3 ? { slot: Math.floor(rnd() * 5) } : {}) }];
}

/** Knives in the catalogue (WEAPONS' def indexes): "any knife" rules name one of them. */
const KNIFE_DEFS = WEAPONS.flatMap((w, i) => (w.endsWith("Knife") ? [i < 20 ? i + 1 : 500 + i] : []));

/**
 * A rule naming no item: a skin by def+paint index, a weapon by def index ("any Talon Knife under
 * $100 below 0.01 float"), a paint, a sticker or keychain, or the whole market bounded by a
 * discount ("any listing 30% under reference"), a float ceiling, a profit after fees or a category.
 */
function itemlessRule(
  market: Market,
  skin: Skin,
  deal: (price: number) => number,
  seeds: () => number[],
): RuleFilters {
  const { rnd } = market;
  const f: RuleFilters = {};
  const cents = () => 100 * (1 + Math.floor(rnd() * 200));
  const tinyFloat = () => Math.round((0.0005 + rnd() * 0.0095) * 10000) / 10000;
  const kind = rnd();
  if (kind < 0.3) {
    f.def_index = skin.defIndex;
    f.paint_index = skin.paintIndex;
    if (rnd() < 0.4) f.paint_seeds = seeds();
    else f.max_price = deal(cheapestOf(skin));
  } else if (kind < 0.45) {
    const knife = rnd() < 0.3;
    f.def_index = knife ? (KNIFE_DEFS[Math.floor(rnd() * KNIFE_DEFS.length)] as number) : skin.defIndex;
    if (knife || rnd() < 0.5) {
      f.max_float = tinyFloat();
      if (knife || rnd() < 0.5) f.max_price = cents();
    } else f.paint_seeds = seeds();
  } else if (kind < 0.5) {
    f.paint_index = skin.paintIndex;
    f.max_price = deal(cheapestOf(skin));
  } else if (kind < 0.65) {
    f.stickers = stickerWatch(rnd);
    if (rnd() < 0.5) f.max_price = cents();
  } else if (kind < 0.72) {
    f.keychains = [Math.floor(rnd() * 300)];
    if (rnd() < 0.5) f.max_price = cents();
  } else {
    // The whole market, bounded tightly (a loose bound over the whole market would be spam).
    const broad = rnd();
    if (broad < 0.35) {
      f.min_discount = 30 + Math.floor(rnd() * 31);
      if (rnd() < 0.7) f.max_price = cents();
    } else if (broad < 0.6) {
      f.max_float = Math.round((0.0002 + rnd() * 0.003) * 10000) / 10000;
      f.max_price = cents();
    } else if (broad < 0.8) {
      f.min_profit_pct = 40 + Math.floor(rnd() * 61);
      f.min_profit = 500 + 100 * Math.floor(rnd() * 50);
    } else {
      f.category = rnd() < 0.8 ? "statcounter" : "souvenir";
      f.min_discount = 20 + Math.floor(rnd() * 26);
    }
  }
  return f;
}

/** Listings as the feed delivers them, parsed by the real Listing schema. */
export function generateListings(market: Market, count: number): Listing[] {
  const { rnd } = market;
  const listings: Listing[] = [];
  for (let i = 0; i < count; i++) {
    const skin = market.pickSkin();
    const [wearName, lo, hi] = wearOf(rnd);
    const statcounter = rnd() < 0.1;
    const ref = referenceOf(skin, lo, statcounter);
    // Most listings sit near the reference; a few are deals or overpriced.
    const price = Math.max(3, Math.round(ref * Math.exp((rnd() + rnd() + rnd() - 1.6) * 0.25)));
    const stickers =
      rnd() < 0.3
        ? Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, slot) => ({
            stickerId: market.pickSticker(),
            slot,
          }))
        : [];
    const raw: RawListing = {
      id: String(9_000_000_000 + i),
      created_at: "2025-01-01T00:00:00Z",
      type: rnd() < 0.15 ? "auction" : "buy_now",
      price,
      state: rnd() < 0.97 ? "listed" : "sold",
      item: {
        market_hash_name: marketName(skin, wearName, statcounter),
        def_index: skin.defIndex,
        paint_index: skin.paintIndex,
        paint_seed: Math.floor(rnd() * 1001),
        float_value: lo + rnd() * (hi - lo),
        is_statcounter: statcounter,
        is_souvenir: false,
        stickers,
        keychains: rnd() < 0.05 ? [{ stickerId: Math.floor(rnd() * 300), slot: 0 }] : [],
      },
      reference:
        rnd() < 0.9 ? { predicted_price: ref, base_price: ref, quantity: Math.floor(rnd() * 500) } : null,
    };
    listings.push(Listing.parse(raw));
  }
  return listings;
}

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
    for (const l of listings) matches += index.match(l).length;
    const indexUs = timePerListing(listings, (l) => index.match(l), minMs);
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
