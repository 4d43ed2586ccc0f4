// The sandbox's invented item catalog: weapons, finishes, wears, stickers and charms with neutral names.

export interface Wear {
  name: string;
  min: number;
  /** Exclusive upper bound, except the last wear which includes 1. */
  max: number;
}

export const WEARS: readonly Wear[] = [
  { name: "Pristine", min: 0, max: 0.07 },
  { name: "Lightly Used", min: 0.07, max: 0.15 },
  { name: "Field Worn", min: 0.15, max: 0.38 },
  { name: "Heavily Used", min: 0.38, max: 0.45 },
  { name: "Battered", min: 0.45, max: 1 },
];

export function wearForFloat(float: number): Wear {
  return WEARS.find((w) => float >= w.min && float < w.max) ?? (WEARS[WEARS.length - 1] as Wear);
}

export const RARITIES: readonly string[] = ["", "Common", "Uncommon", "Rare", "Epic", "Legendary", "Mythic"];

export interface Weapon {
  name: string;
  defIndex: number;
  type: string;
}

export const WEAPONS: readonly Weapon[] = [
  { name: "Falcon Rifle", defIndex: 7, type: "Rifle" },
  { name: "Warden Carbine", defIndex: 16, type: "Rifle" },
  { name: "Talon Sniper", defIndex: 9, type: "Sniper Rifle" },
  { name: "Kestrel Pistol", defIndex: 4, type: "Pistol" },
  { name: "Marlin Pistol", defIndex: 1, type: "Pistol" },
  { name: "Vesper SMG", defIndex: 33, type: "SMG" },
  { name: "Nomad SMG", defIndex: 24, type: "SMG" },
  { name: "Breaker Shotgun", defIndex: 35, type: "Shotgun" },
  { name: "Harrow Machinegun", defIndex: 14, type: "Machinegun" },
  { name: "Glider Knife", defIndex: 505, type: "Knife" },
];

export interface Finish {
  weapon: string;
  name: string;
  paintIndex: number;
  rarity: number;
  collection: string;
  /** Float range the finish can roll. */
  minFloat: number;
  maxFloat: number;
  /** Typical price in cents of a Field Worn copy; other wears scale from it. */
  basePrice: number;
}

const C = {
  lantern: "The Lantern Collection",
  tidewater: "The Tidewater Collection",
  foundry: "The Foundry Collection",
  orchard: "The Orchard Collection",
};

export const FINISHES: readonly Finish[] = [
  {
    weapon: "Falcon Rifle",
    name: "Ember Tide",
    paintIndex: 301,
    rarity: 5,
    collection: C.lantern,
    minFloat: 0,
    maxFloat: 0.8,
    basePrice: 4200,
  },
  {
    weapon: "Falcon Rifle",
    name: "Glacier Veil",
    paintIndex: 302,
    rarity: 4,
    collection: C.tidewater,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 1250,
  },
  {
    weapon: "Falcon Rifle",
    name: "Night Circuit",
    paintIndex: 303,
    rarity: 6,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 0.7,
    basePrice: 18900,
  },
  {
    weapon: "Warden Carbine",
    name: "Copper Bloom",
    paintIndex: 311,
    rarity: 4,
    collection: C.orchard,
    minFloat: 0,
    maxFloat: 0.6,
    basePrice: 890,
  },
  {
    weapon: "Warden Carbine",
    name: "Harbor Fog",
    paintIndex: 312,
    rarity: 3,
    collection: C.tidewater,
    minFloat: 0.06,
    maxFloat: 0.8,
    basePrice: 145,
  },
  {
    weapon: "Warden Carbine",
    name: "Solar Flare",
    paintIndex: 313,
    rarity: 5,
    collection: C.lantern,
    minFloat: 0,
    maxFloat: 0.5,
    basePrice: 3600,
  },
  {
    weapon: "Talon Sniper",
    name: "Violet Drift",
    paintIndex: 321,
    rarity: 6,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 32500,
  },
  {
    weapon: "Talon Sniper",
    name: "Sandstorm Lattice",
    paintIndex: 322,
    rarity: 3,
    collection: C.orchard,
    minFloat: 0.1,
    maxFloat: 1,
    basePrice: 310,
  },
  {
    weapon: "Kestrel Pistol",
    name: "Rust Meridian",
    paintIndex: 331,
    rarity: 2,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 35,
  },
  {
    weapon: "Kestrel Pistol",
    name: "Aurora Stitch",
    paintIndex: 332,
    rarity: 5,
    collection: C.lantern,
    minFloat: 0,
    maxFloat: 0.65,
    basePrice: 2450,
  },
  {
    weapon: "Marlin Pistol",
    name: "Moss Cascade",
    paintIndex: 341,
    rarity: 3,
    collection: C.orchard,
    minFloat: 0,
    maxFloat: 0.9,
    basePrice: 120,
  },
  {
    weapon: "Marlin Pistol",
    name: "Ivory Dusk",
    paintIndex: 342,
    rarity: 4,
    collection: C.tidewater,
    minFloat: 0,
    maxFloat: 0.5,
    basePrice: 760,
  },
  {
    weapon: "Vesper SMG",
    name: "Neon Quarry",
    paintIndex: 351,
    rarity: 3,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 90,
  },
  {
    weapon: "Vesper SMG",
    name: "Coral Static",
    paintIndex: 352,
    rarity: 4,
    collection: C.tidewater,
    minFloat: 0,
    maxFloat: 0.75,
    basePrice: 540,
  },
  {
    weapon: "Nomad SMG",
    name: "Paper Lanterns",
    paintIndex: 361,
    rarity: 2,
    collection: C.lantern,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 25,
  },
  {
    weapon: "Breaker Shotgun",
    name: "Slate Thunder",
    paintIndex: 371,
    rarity: 3,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 75,
  },
  {
    weapon: "Harrow Machinegun",
    name: "Orchard Rows",
    paintIndex: 381,
    rarity: 2,
    collection: C.orchard,
    minFloat: 0,
    maxFloat: 1,
    basePrice: 18,
  },
  {
    weapon: "Glider Knife",
    name: "Ember Tide",
    paintIndex: 301,
    rarity: 6,
    collection: C.lantern,
    minFloat: 0,
    maxFloat: 0.8,
    basePrice: 61000,
  },
  {
    weapon: "Glider Knife",
    name: "Molten Gradient",
    paintIndex: 391,
    rarity: 6,
    collection: C.foundry,
    minFloat: 0,
    maxFloat: 0.08,
    basePrice: 124000,
  },
];

/** Price multiplier of each wear relative to Field Worn. */
export const WEAR_PRICE_FACTOR: Readonly<Record<string, number>> = {
  Pristine: 2.6,
  "Lightly Used": 1.5,
  "Field Worn": 1,
  "Heavily Used": 0.8,
  Battered: 0.7,
};

export interface StickerDef {
  id: number;
  name: string;
  price: number;
}

export const STICKERS: readonly StickerDef[] = [
  { id: 1101, name: "Sticker | Paper Crane", price: 12 },
  { id: 1102, name: "Sticker | Neon Fox", price: 85 },
  { id: 1103, name: "Sticker | Neon Fox (Holo)", price: 640 },
  { id: 1104, name: "Sticker | Golden Anchor", price: 2300 },
  { id: 1105, name: "Sticker | Thunder Owl", price: 40 },
  { id: 1106, name: "Sticker | Pixel Heart", price: 7 },
  { id: 1107, name: "Sticker | Midnight Comet (Foil)", price: 15400 },
  { id: 1108, name: "Sticker | Lucky Pebble", price: 3 },
];

export const KEYCHAINS: readonly StickerDef[] = [
  { id: 31, name: "Charm | Tiny Lantern", price: 180 },
  { id: 32, name: "Charm | Brass Dice", price: 420 },
  { id: 33, name: "Charm | Glass Koi", price: 2900 },
];

/** Finishes of rarity 3 and up also come as statcounter copies. */
export const canBeStatcounter = (finish: Finish): boolean => finish.rarity >= 3;
/** Souvenir copies exist of the Tidewater collection's guns (no knives). */
export const canBeSouvenir = (finish: Finish): boolean =>
  finish.weapon !== "Glider Knife" && finish.collection.includes("Tidewater");

export const STATCOUNTER_PREFIX = "Statcounter ";
export const SOUVENIR_PREFIX = "Souvenir ";

/** "<Weapon> | <Finish> (<Wear>)" with the statcounter or souvenir prefix when relevant. */
export function marketHashName(
  weapon: string,
  finish: string,
  wear: string,
  flags: { statcounter?: boolean; souvenir?: boolean } = {},
): string {
  const prefix = flags.statcounter ? STATCOUNTER_PREFIX : flags.souvenir ? SOUVENIR_PREFIX : "";
  return `${prefix}${weapon} | ${finish} (${wear})`;
}

export interface ParsedName {
  weapon: string;
  finish: string;
  wear: string | undefined;
  statcounter: boolean;
  souvenir: boolean;
}

/** Splits a market hash name back into its parts; undefined when it is not of the weapon form. */
export function parseMarketHashName(name: string): ParsedName | undefined {
  const m = /^(Statcounter |Souvenir )?(.+?) \| (.+?)(?: \(([^()]+)\))?$/.exec(name);
  if (!m) return undefined;
  return {
    weapon: m[2] as string,
    finish: m[3] as string,
    wear: m[4],
    statcounter: m[1] === STATCOUNTER_PREFIX,
    souvenir: m[1] === SOUVENIR_PREFIX,
  };
}

export interface CatalogItem {
  /** The market hash name, exactly as listings carry it. */
  name: string;
  finish: Finish;
  wear: string;
  variant: "normal" | "statcounter" | "souvenir";
  /** Typical price in cents, before the market's noise. */
  basePrice: number;
}

/**
 * Every item name the sandbox world can produce: each finish in each wear its float range
 * reaches, plus its statcounter and souvenir copies where they exist. The one list the sandbox
 * seeds from, the playground panel offers and the bot's autocomplete suggests (src/app.ts).
 */
export function catalogItems(): CatalogItem[] {
  const items: CatalogItem[] = [];
  for (const finish of FINISHES) {
    for (const wear of WEARS) {
      if (wear.max <= finish.minFloat || wear.min >= finish.maxFloat) continue;
      const base = finish.basePrice * (WEAR_PRICE_FACTOR[wear.name] ?? 1);
      const item = (variant: CatalogItem["variant"], factor: number): CatalogItem => ({
        name: marketHashName(finish.weapon, finish.name, wear.name, {
          statcounter: variant === "statcounter",
          souvenir: variant === "souvenir",
        }),
        finish,
        wear: wear.name,
        variant,
        basePrice: base * factor,
      });
      items.push(item("normal", 1));
      if (canBeStatcounter(finish)) items.push(item("statcounter", 2.2));
      if (canBeSouvenir(finish)) items.push(item("souvenir", 1.8));
    }
  }
  return items;
}

/** The item the README's examples use: always in the catalog, always listed in a seeded world. */
export const EXAMPLE_ITEM = "Falcon Rifle | Ember Tide (Pristine)";
