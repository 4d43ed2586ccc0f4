// Buy-order item constraints: the domain's names, their validation, and the two wire shapes
// (nested hybrid_properties on create, flat and absolute on update).
import { invalidOption } from "../errors.ts";
import type { HybridProperties } from "../market/schemas.ts";
import { requireFloat, requireInt } from "../input/validate.ts";

export interface BuyOrderConstraints {
  minFloat?: number | undefined;
  maxFloat?: number | undefined;
  paintIndex?: number | undefined;
  paintSeeds?: readonly number[] | undefined;
  stickerIds?: readonly number[] | undefined;
  keychainIds?: readonly number[] | undefined;
  minKeychainPattern?: number | undefined;
  maxKeychainPattern?: number | undefined;
}

export type ConstraintName = keyof BuyOrderConstraints;

export const CONSTRAINT_NAMES = [
  "minFloat",
  "maxFloat",
  "paintIndex",
  "paintSeeds",
  "stickerIds",
  "keychainIds",
  "minKeychainPattern",
  "maxKeychainPattern",
] as const satisfies readonly ConstraintName[];

/** The option names users see for each constraint (snake case, as in the slash commands). */
const OPTION: Record<ConstraintName, string> = {
  minFloat: "min_float",
  maxFloat: "max_float",
  paintIndex: "paint_index",
  paintSeeds: "paint_seeds",
  stickerIds: "stickers",
  keychainIds: "keychains",
  minKeychainPattern: "min_keychain_pattern",
  maxKeychainPattern: "max_keychain_pattern",
};

export function isConstraintName(name: string): name is ConstraintName {
  return (CONSTRAINT_NAMES as readonly string[]).includes(name);
}

const MAX_LIST = 50;

function requireIntList(name: ConstraintName, values: readonly number[], max: number): number[] {
  if (values.length === 0) throw invalidOption(OPTION[name], "give at least one value, or clear it");
  if (values.length > MAX_LIST) throw invalidOption(OPTION[name], `at most ${MAX_LIST} values`);
  return [...new Set(values.map((v) => requireInt(OPTION[name], v, 0, max)))];
}

/** Validates every given constraint and the ranges they form; drops absent ones. */
export function validateConstraints(input: BuyOrderConstraints): BuyOrderConstraints {
  const out: BuyOrderConstraints = {};
  if (input.minFloat !== undefined) out.minFloat = requireFloat(OPTION.minFloat, input.minFloat);
  if (input.maxFloat !== undefined) out.maxFloat = requireFloat(OPTION.maxFloat, input.maxFloat);
  if (input.paintIndex !== undefined)
    out.paintIndex = requireInt(OPTION.paintIndex, input.paintIndex, 0, 100_000);
  if (input.paintSeeds !== undefined)
    out.paintSeeds = requireIntList("paintSeeds", input.paintSeeds, 100_000);
  if (input.stickerIds !== undefined)
    out.stickerIds = requireIntList("stickerIds", input.stickerIds, 2 ** 31 - 1);
  if (input.keychainIds !== undefined)
    out.keychainIds = requireIntList("keychainIds", input.keychainIds, 2 ** 31 - 1);
  if (input.minKeychainPattern !== undefined) {
    out.minKeychainPattern = requireInt(OPTION.minKeychainPattern, input.minKeychainPattern, 0, 2 ** 31 - 1);
  }
  if (input.maxKeychainPattern !== undefined) {
    out.maxKeychainPattern = requireInt(OPTION.maxKeychainPattern, input.maxKeychainPattern, 0, 2 ** 31 - 1);
  }
  if (out.minFloat !== undefined && out.maxFloat !== undefined && out.minFloat > out.maxFloat) {
    throw invalidOption("min_float", `must not exceed max_float (${out.maxFloat})`);
  }
  if (
    out.minKeychainPattern !== undefined &&
    out.maxKeychainPattern !== undefined &&
    out.minKeychainPattern > out.maxKeychainPattern
  ) {
    throw invalidOption(
      "min_keychain_pattern",
      `must not exceed max_keychain_pattern (${out.maxKeychainPattern})`,
    );
  }
  return out;
}

export function fromHybridProperties(hp: HybridProperties | undefined): BuyOrderConstraints {
  const out: BuyOrderConstraints = {};
  if (!hp) return out;
  if (hp.min_float !== undefined) out.minFloat = hp.min_float;
  if (hp.max_float !== undefined) out.maxFloat = hp.max_float;
  if (hp.paint_index !== undefined) out.paintIndex = hp.paint_index;
  if (hp.paint_seeds !== undefined && hp.paint_seeds.length > 0) out.paintSeeds = hp.paint_seeds;
  if (hp.applied_stickers !== undefined && hp.applied_stickers.length > 0) {
    out.stickerIds = hp.applied_stickers.map((s) => s.sId);
  }
  if (hp.applied_keychains !== undefined && hp.applied_keychains.length > 0) {
    out.keychainIds = hp.applied_keychains.map((s) => s.sId);
  }
  if (hp.min_keychain_pattern !== undefined) out.minKeychainPattern = hp.min_keychain_pattern;
  if (hp.max_keychain_pattern !== undefined) out.maxKeychainPattern = hp.max_keychain_pattern;
  return out;
}

/** The nested shape POST /buy-orders and similar-orders take; absent constraints are left out. */
export interface HybridPropertiesBody {
  min_float?: number;
  max_float?: number;
  paint_index?: number;
  paint_seeds?: number[];
  applied_stickers?: { sId: number }[];
  applied_keychains?: { sId: number }[];
  min_keychain_pattern?: number;
  max_keychain_pattern?: number;
}

export function toHybridProperties(c: BuyOrderConstraints): HybridPropertiesBody {
  const out: HybridPropertiesBody = {};
  if (c.minFloat !== undefined) out.min_float = c.minFloat;
  if (c.maxFloat !== undefined) out.max_float = c.maxFloat;
  if (c.paintIndex !== undefined) out.paint_index = c.paintIndex;
  if (c.paintSeeds !== undefined) out.paint_seeds = [...c.paintSeeds];
  if (c.stickerIds !== undefined) out.applied_stickers = c.stickerIds.map((sId) => ({ sId }));
  if (c.keychainIds !== undefined) out.applied_keychains = c.keychainIds.map((sId) => ({ sId }));
  if (c.minKeychainPattern !== undefined) out.min_keychain_pattern = c.minKeychainPattern;
  if (c.maxKeychainPattern !== undefined) out.max_keychain_pattern = c.maxKeychainPattern;
  return out;
}

/**
 * The flat constraint fields of PATCH /buy-orders/{id}. Every field is always present: the
 * update is absolute, so an omitted field would be cleared anyway; null says so explicitly.
 */
export interface FlatConstraintsBody {
  min_float: number | null;
  max_float: number | null;
  paint_index: number | null;
  paint_seeds: number[] | null;
  applied_stickers: { sId: number }[] | null;
  applied_keychains: { sId: number }[] | null;
  min_keychain_pattern: number | null;
  max_keychain_pattern: number | null;
}

export function toFlatConstraints(c: BuyOrderConstraints): FlatConstraintsBody {
  return {
    min_float: c.minFloat ?? null,
    max_float: c.maxFloat ?? null,
    paint_index: c.paintIndex ?? null,
    paint_seeds: c.paintSeeds ? [...c.paintSeeds] : null,
    applied_stickers: c.stickerIds ? c.stickerIds.map((sId) => ({ sId })) : null,
    applied_keychains: c.keychainIds ? c.keychainIds.map((sId) => ({ sId })) : null,
    min_keychain_pattern: c.minKeychainPattern ?? null,
    max_keychain_pattern: c.maxKeychainPattern ?? null,
  };
}

/**
 * The constraints an edit leaves on the order: every current one the user did not touch,
 * the changed ones, minus exactly those named in `clear`. Naming a constraint both to change
 * and to clear is contradictory and refused rather than guessed.
 */
export function mergeConstraints(
  current: BuyOrderConstraints,
  changes: BuyOrderConstraints,
  clear: readonly ConstraintName[],
): BuyOrderConstraints {
  const merged: BuyOrderConstraints = { ...current };
  for (const name of CONSTRAINT_NAMES) {
    const value = changes[name];
    if (value === undefined) continue;
    if (clear.includes(name)) throw invalidOption(OPTION[name], "cannot be both set and cleared");
    // Each key is assigned its own value, so the union of value types never crosses keys.
    (merged as Record<ConstraintName, unknown>)[name] = value;
  }
  for (const name of clear) delete merged[name];
  return merged;
}
