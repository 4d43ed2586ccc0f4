// Makes users, items and assets for seeding and for the control surface, from the invented catalog.
import {
  FINISHES,
  KEYCHAINS,
  marketHashName,
  parseMarketHashName,
  RARITIES,
  STICKERS,
  WEAPONS,
  WEAR_PRICE_FACTOR,
  WEARS,
  wearForFloat,
  type Finish,
  type Wear,
} from "./catalog.ts";
import { badRequest } from "./errors.ts";
import type { AssetRec, ItemRec, KeychainRec, StickerRec, Store, UserRec } from "./state/index.ts";

export function makeUser(
  store: Store,
  input: {
    name: string;
    platformId: string;
    apiKey: string;
    kind: UserRec["kind"];
    balance: number;
    stallPublic?: boolean;
    autoAcceptMs?: number | undefined;
  },
): UserRec {
  const u: UserRec = {
    platformId: input.platformId,
    name: input.name,
    apiKey: input.apiKey,
    revoked: false,
    kind: input.kind,
    balance: 0,
    pending: 0,
    stallPublic: input.stallPublic ?? true,
    autoAcceptMs: input.autoAcceptMs,
    obfuscatedId: store.rng.hex(16),
    avatar: `https://avatars.invalid/${input.platformId}.png`,
    online: store.rng.chance(0.7),
    away: false,
    totalTrades: 0,
    verifiedTrades: 0,
    failedTrades: 0,
    inventory: new Map(),
    watchlist: new Map(),
  };
  store.addUser(u);
  // Detail fields as the live ledger sends them: money-like values as numeric strings.
  if (input.balance > 0) {
    store.post(u.platformId, "deposit", input.balance, 0, {
      payment_method: "sandbox",
      fee_amount: "0.00",
      fee: "0",
    });
  }
  return u;
}

/** What an item may be pinned to; everything else is drawn from the seeded RNG. */
export interface ItemSpec {
  marketHashName?: string | undefined;
  finish?: Finish | undefined;
  defIndex?: number | undefined;
  paintIndex?: number | undefined;
  floatValue?: number | undefined;
  paintSeed?: number | undefined;
  statcounter?: boolean | undefined;
  souvenir?: boolean | undefined;
  stickers?:
    readonly { stickerId: number; slot?: number | undefined; wear?: number | undefined }[] | undefined;
  keychains?: readonly { stickerId: number; pattern?: number | undefined }[] | undefined;
  /** Pinned special values (spec 2.3): item.fade, item.blue_gem and item.low_rank. */
  fade?: { percentage: number; rank?: number | undefined; type?: string | undefined } | undefined;
  blueGem?: Record<string, number> | undefined;
  lowRank?: number | undefined;
  /** Draw random stickers/keychains when none are pinned (seeding). */
  decorate?: boolean;
}

const hashOf = (text: string): number => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
};

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function finishFor(spec: ItemSpec, store: Store): { finish: Finish; wearName: string | undefined } {
  if (spec.marketHashName !== undefined) {
    const parsed = parseMarketHashName(spec.marketHashName);
    if (!parsed) throw badRequest(`market_hash_name must look like "<Weapon> | <Finish> (<Wear>)"`);
    const known = FINISHES.find((f) => f.weapon === parsed.weapon && f.name === parsed.finish);
    const finish: Finish = known ?? {
      weapon: parsed.weapon,
      name: parsed.finish,
      paintIndex: spec.paintIndex ?? 600 + (hashOf(parsed.finish) % 300),
      rarity: 3,
      collection: "The Sandbox Collection",
      minFloat: 0,
      maxFloat: 1,
      basePrice: 500,
    };
    return { finish, wearName: parsed.wear };
  }
  if (spec.finish) return { finish: spec.finish, wearName: undefined };
  const candidates = FINISHES.filter(
    (f) =>
      (spec.paintIndex === undefined || f.paintIndex === spec.paintIndex) &&
      (spec.defIndex === undefined || WEAPONS.find((w) => w.name === f.weapon)?.defIndex === spec.defIndex),
  );
  return { finish: store.rng.pick(candidates.length > 0 ? candidates : FINISHES), wearName: undefined };
}

export function makeItem(store: Store, spec: ItemSpec, assetId: string): ItemRec {
  const rng = store.rng;
  const { finish, wearName } = finishFor(spec, store);
  const weapon = WEAPONS.find((w) => w.name === finish.weapon);
  const parsed = spec.marketHashName !== undefined ? parseMarketHashName(spec.marketHashName) : undefined;
  let floatValue = spec.floatValue;
  if (floatValue === undefined) {
    const wear: Wear | undefined =
      wearName !== undefined ? WEARS.find((w) => w.name === wearName) : undefined;
    const lo = Math.max(finish.minFloat, wear?.min ?? 0);
    const hi = Math.min(finish.maxFloat, wear?.max ?? 1);
    floatValue = round6(lo < hi ? rng.float(lo, hi) : (wear?.min ?? finish.minFloat));
  }
  const wear = wearName ?? wearForFloat(floatValue).name;
  const statcounter = spec.statcounter ?? parsed?.statcounter ?? false;
  const souvenir = !statcounter && (spec.souvenir ?? parsed?.souvenir ?? false);
  const stickers: StickerRec[] = (
    spec.stickers ??
    (spec.decorate && rng.chance(0.3)
      ? Array.from({ length: rng.int(1, 4) }, (_, i) => ({ stickerId: rng.pick(STICKERS).id, slot: i }))
      : [])
  ).map((s: { stickerId: number; slot?: number | undefined; wear?: number | undefined }, i) => {
    const def = STICKERS.find((d) => d.id === s.stickerId);
    const drawn = Math.round(rng.float(0, 0.6) * 100) / 100;
    return {
      stickerId: s.stickerId,
      slot: s.slot ?? i,
      wear: s.wear ?? drawn,
      name: def?.name ?? `Sticker | Sample ${s.stickerId}`,
      price: def?.price ?? 10,
      offsetX: Math.round(rng.float(-0.5, 0.5) * 1000) / 1000,
      offsetY: Math.round(rng.float(-0.5, 0.5) * 1000) / 1000,
    };
  });
  const keychains: KeychainRec[] = (
    spec.keychains ?? (spec.decorate && rng.chance(0.05) ? [{ stickerId: rng.pick(KEYCHAINS).id }] : [])
  ).map((k, i) => {
    const def = KEYCHAINS.find((d) => d.id === k.stickerId);
    return {
      stickerId: k.stickerId,
      slot: i,
      pattern: k.pattern ?? rng.int(0, 100_000),
      name: def?.name ?? `Charm | Sample ${k.stickerId}`,
      price: def?.price ?? 100,
    };
  });
  const dParam = String(rng.int(1e9, 9e9)) + String(rng.int(1e8, 9e8));
  return {
    marketHashName:
      spec.marketHashName ?? marketHashName(finish.weapon, finish.name, wear, { statcounter, souvenir }),
    weapon: finish.weapon,
    finish: finish.name,
    wearName: wear,
    type: weapon?.type ?? "Rifle",
    defIndex: spec.defIndex ?? weapon?.defIndex ?? 100 + (hashOf(finish.weapon) % 400),
    paintIndex: spec.paintIndex ?? finish.paintIndex,
    paintSeed: spec.paintSeed ?? rng.int(0, 1000),
    floatValue,
    rarity: finish.rarity,
    rarityName: RARITIES[finish.rarity] ?? "Common",
    collection: finish.collection,
    isStatcounter: statcounter,
    isSouvenir: souvenir,
    stickers,
    keychains,
    inspectLink: `platform://inspect/A${assetId}D${dParam}`,
    dParam,
    gsSig: rng.hex(32),
    lowRank: spec.lowRank ?? (floatValue < 0.01 ? 1 + Math.floor(floatValue * 10_000) : undefined),
    highRank: floatValue > 0.97 ? 1 + Math.floor((1 - floatValue) * 10_000) : undefined,
    ...(spec.fade === undefined
      ? {}
      : {
          fade: {
            percentage: spec.fade.percentage,
            rank: spec.fade.rank,
            seed: spec.paintSeed ?? 0,
            type: spec.fade.type ?? "Fade",
          },
        }),
    ...(spec.blueGem === undefined ? {} : { blueGem: { ...spec.blueGem } }),
  };
}

export function makeAsset(
  store: Store,
  owner: UserRec | undefined,
  spec: ItemSpec,
  /** A fixed id (the demo users' well-known assets); default a fresh one. */
  fixedId?: string,
): AssetRec {
  const assetId = fixedId ?? String(30_000_000_000n + BigInt(store.nextId().seq));
  const asset: AssetRec = { assetId, item: makeItem(store, spec, assetId) };
  store.assetsByInspect.set(asset.item.inspectLink, asset);
  if (owner) owner.inventory.set(assetId, asset);
  return asset;
}

/** A plausible market price for an item: the reference when there is one, else the catalog model. */
export function modelPrice(store: Store, item: ItemRec): number {
  const ref = store.references.get(item.marketHashName);
  if (ref) return ref.predictedPrice;
  const finish = FINISHES.find((f) => f.weapon === item.weapon && f.name === item.finish);
  const base = finish?.basePrice ?? 500;
  const factor =
    (WEAR_PRICE_FACTOR[item.wearName] ?? 1) * (item.isStatcounter ? 2.2 : item.isSouvenir ? 1.8 : 1);
  return Math.max(3, Math.round(base * factor));
}
