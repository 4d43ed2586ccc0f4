// A seeded synthetic market for the benchmarks: skins and wears, watch rules as users write them
// (most naming an item, some hunting a seed, a float or a deal across the market), and listings as
// the feed delivers them, parsed by the real Listing schema.
import type { z } from "zod";
import type { MatcherRule } from "../../src/watch/matcher/matcher.ts";
import type { RuleFilters } from "../../src/watch/ruleFilters.ts";
import { Listing } from "../../src/market/schemas.ts";
import { seededRandom } from "../../src/util/rng.ts";

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
