// The one place user-typed values are validated: each parser returns plain data or throws invalidOption().
import { invalidOption } from "../errors.ts";
import { MAX_CENTS, parseDollars, type Cents } from "../money.ts";

/** What Discord hands us for a String or Number option; absent options are handled by callers. */
export type RawOption = string | number;

/** Longest numeric text we even try to read; anything longer is a paste accident or an attack. */
const MAX_NUMERIC_TEXT = 40;
/** parseDollars caps amounts at MAX_CENTS (one billion dollars). */
const TOO_BIG = "must be at most $1,000,000,000";
/** Longest token quoted back in an error message. */
const MAX_QUOTED = 24;

export const SEED_MIN = 0;
export const SEED_MAX = 100_000;
export const MAX_SEEDS = 100;
export const STICKER_SLOT_MIN = 0;
export const STICKER_SLOT_MAX = 5;
/** An item carries at most six stickers (slots 0-5), so more selectors could never all match. */
export const MAX_STICKER_SELECTORS = 6;
/** Sticker and keychain ids are 32-bit on the platform; larger numbers are typos. */
export const MAX_SMALL_ID = 2_147_483_647;

// Cc = C0/C1 controls (NUL, ESC, newlines...); the bidi overrides and isolates let text render
// in a different order than it is stored, which is how spoofed names are built.
const CONTROL_OR_BIDI = /[\p{Cc}\u202A-\u202E\u2066-\u2069\u061C\u200E\u200F]/u;
const CONTROL_OR_BIDI_ALL = new RegExp(CONTROL_OR_BIDI.source, "gu");

// ---------------------------------------------------------------------------------------------
// Echoing user text back safely

/**
 * Escapes Discord markdown so user text renders literally. Single `|` is not markdown (only the
 * `||spoiler||` pair is), so item names such as "Rifle | Skin" stay readable.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      .replace(/[\\*_~`[\]]/g, "\\$&")
      .replace(/\|\|/g, "\\|\\|")
      // Block markers only count at a line start and before a space ("-1" and "1.5" stay as they are).
      .replace(/^(\s*)(?=(?:#{1,3}|-#|>{1,3}|[-+])\s)/gm, "$1\\")
      .replace(/^(\s*\d+)\.(?=\s)/gm, "$1\\.")
  );
}

/**
 * Breaks @everyone/@here and user, role and channel mentions with a zero-width space, so echoed
 * text can never ping anyone even if a caller forgets allowed_mentions.
 */
export function neutralizeMentions(text: string): string {
  return text.replace(/@(everyone|here)/gi, "@\u200b$1").replace(/<(@[!&]?|#)(\d+)>/g, "<$1\u200b$2>");
}

/** User text made safe to show in a message or embed: controls removed, markdown and mentions defused, truncated. */
export function safeUserText(text: string, maxLen = 100): string {
  // Only the head can be shown, so huge input is not walked code point by code point.
  const head = text.length > maxLen * 2 + 2 ? text.slice(0, maxLen * 2 + 2) : text;
  const chars = [...head.replace(CONTROL_OR_BIDI_ALL, " ")];
  const cut =
    chars.length > maxLen || head !== text ? `${chars.slice(0, maxLen - 1).join("")}…` : chars.join("");
  return neutralizeMentions(escapeMarkdown(cut));
}

/** A bad token quoted in an error message, shortened and defused. */
function quote(token: string): string {
  return `"${safeUserText(token, MAX_QUOTED)}"`;
}

// ---------------------------------------------------------------------------------------------
// Numbers

function asText(raw: RawOption): string {
  return typeof raw === "number" ? String(raw) : raw.trim();
}

const PRICE_EXAMPLE = "enter a price in dollars, e.g. 12.50";
const CENTS_ONLY = "use at most 2 decimals (whole cents), e.g. 12.50";

/** Why parseDollars refused an input, in words a user can act on. */
function whyNotPrice(raw: RawOption): string {
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) return PRICE_EXAMPLE;
    if (raw < 0) return "must not be negative";
    return raw * 100 > MAX_CENTS ? TOO_BIG : CENTS_ONLY;
  }
  // Same thousands-separator rule as parseDollars, so "1,2" is not mistaken for 12.
  const text = raw
    .trim()
    .replace(/^\$\s*/, "")
    .replace(/,(?=\d{3}(\D|$))/g, "");
  if (/^-\s*\$?\s*\d/.test(text)) return "must not be negative";
  const plain = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (plain === null) return PRICE_EXAMPLE;
  return (plain[2] ?? "").length > 2 ? CENTS_ONLY : TOO_BIG;
}

/**
 * Price in dollars -> integer cents. parseDollars is the authority on what is accepted;
 * whyNotPrice only picks the clearest message for what it refused.
 */
export function parsePrice(option: string, raw: RawOption, opts: { allowZero?: boolean } = {}): Cents {
  if (typeof raw === "string" && raw.length > MAX_NUMERIC_TEXT) {
    throw invalidOption(option, `is too long; ${PRICE_EXAMPLE}`);
  }
  const cents = parseDollars(raw);
  if (cents === undefined) throw invalidOption(option, whyNotPrice(raw));
  if (cents === 0 && !opts.allowZero) throw invalidOption(option, "must be more than $0.00");
  return cents;
}

/** Plain decimal text ("0.07", ".5", "-1", "2") -> number; rejects exponents, hex, words and Infinity. */
function decimalFrom(option: string, raw: RawOption, example: string): number {
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) throw invalidOption(option, example);
    return raw;
  }
  const text = raw.trim();
  if (text.length > MAX_NUMERIC_TEXT) throw invalidOption(option, `is too long; ${example}`);
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(text)) throw invalidOption(option, example);
  return Number(text);
}

/** A wear float in [0, 1]. */
export function parseFloatValue(option: string, raw: RawOption): number {
  const value = decimalFrom(option, raw, "enter a float between 0 and 1, e.g. 0.07");
  if (value < 0 || value > 1) throw invalidOption(option, "must be between 0 and 1");
  // -0 would print as "0" but compare oddly in stored JSON; normalise it.
  return value === 0 ? 0 : value;
}

/** A percentage in [0, 100]; a trailing "%" is accepted. */
export function parsePercent(option: string, raw: RawOption): number {
  const text = typeof raw === "string" ? raw.trim().replace(/\s*%$/, "") : raw;
  const value = decimalFrom(option, text, "enter a percentage from 0 to 100, e.g. 15");
  if (value < 0 || value > 100) throw invalidOption(option, "must be between 0 and 100");
  return value === 0 ? 0 : value;
}

/** A whole number in [min, max]. */
export function parseIntOption(option: string, raw: RawOption, min: number, max: number): number {
  const wanted = `must be a whole number from ${min} to ${max}`;
  let value: number;
  if (typeof raw === "number") {
    if (!Number.isInteger(raw)) throw invalidOption(option, wanted);
    value = raw;
  } else {
    const text = raw.trim();
    if (!/^[-+]?\d{1,16}$/.test(text)) throw invalidOption(option, wanted);
    value = Number(text);
  }
  if (value < min || value > max) throw invalidOption(option, wanted);
  return value === 0 ? 0 : value;
}

/** Checks a min/max pair of already-parsed values; either side may be absent. */
export function parseRange<T extends number>(
  minOption: string,
  min: T | undefined,
  maxOption: string,
  max: T | undefined,
  format: (value: T) => string = String,
): { min: T | undefined; max: T | undefined } {
  if (min !== undefined && max !== undefined && min > max) {
    throw invalidOption(
      minOption,
      `${minOption} (${format(min)}) is above ${maxOption} (${format(max)}); ${minOption} must be less than or equal to ${maxOption}`,
    );
  }
  return { min, max };
}

// ---------------------------------------------------------------------------------------------
// Ids and lists

/** Splits a comma/space separated list; empty pieces ("1,,2") are ignored. */
function tokens(raw: string): string[] {
  return raw.split(/[\s,;]+/).filter((t) => t.length > 0);
}

/** A numeric id string (listing, trade, offer...). Kept as a string: ids exceed 2^53. */
export function parseId(option: string, raw: RawOption, noun = "listing"): string {
  const text = asText(raw);
  if (!/^\d{1,20}$/.test(text)) throw invalidOption(option, `${noun} ids are numbers like 123456789`);
  return text;
}

/** Several ids separated by commas or spaces, deduplicated in the order typed. */
export function parseIdList(option: string, raw: string, max = 25, noun = "listing"): string[] {
  if (raw.length > max * 22 + 100)
    throw invalidOption(option, `is too long; enter at most ${max} ${noun} ids`);
  const ids: string[] = [];
  for (const token of tokens(raw)) {
    if (!/^\d{1,20}$/.test(token)) {
      throw invalidOption(option, `${quote(token)} is not an id; ${noun} ids are numbers like 123456789`);
    }
    if (!ids.includes(token)) ids.push(token);
  }
  if (ids.length === 0) throw invalidOption(option, `enter at least one ${noun} id, e.g. 123456789`);
  if (ids.length > max) throw invalidOption(option, `enter at most ${max} ${noun} ids (got ${ids.length})`);
  return ids;
}

/** Pattern seeds: "661, 670, 955" -> [661, 670, 955]. */
export function parseSeeds(option: string, raw: RawOption): number[] {
  const text = asText(raw);
  if (text.length > MAX_SEEDS * 8 + 100)
    throw invalidOption(option, `is too long; enter at most ${MAX_SEEDS} seeds`);
  const seeds: number[] = [];
  for (const token of tokens(text)) {
    const value = /^\d{1,6}$/.test(token) ? Number(token) : NaN;
    if (!(value >= SEED_MIN && value <= SEED_MAX)) {
      throw invalidOption(
        option,
        `${quote(token)} is not a pattern seed; seeds are whole numbers from ${SEED_MIN} to ${SEED_MAX}, e.g. 661, 670, 955`,
      );
    }
    if (!seeds.includes(value)) seeds.push(value);
  }
  if (seeds.length === 0) throw invalidOption(option, "enter at least one seed, e.g. 661, 670, 955");
  if (seeds.length > MAX_SEEDS)
    throw invalidOption(option, `enter at most ${MAX_SEEDS} seeds (got ${seeds.length})`);
  return seeds;
}

/** Numeric ids of small catalogue things (keychains), deduplicated. */
export function parseSmallIdList(option: string, raw: RawOption, max: number, noun: string): number[] {
  const text = asText(raw);
  if (text.length > max * 12 + 100)
    throw invalidOption(option, `is too long; enter at most ${max} ${noun} ids`);
  const ids: number[] = [];
  for (const token of tokens(text)) {
    const value = /^\d{1,10}$/.test(token) ? Number(token) : NaN;
    if (!(value <= MAX_SMALL_ID)) {
      throw invalidOption(option, `${quote(token)} is not a ${noun} id; ${noun} ids are numbers like 4321`);
    }
    if (!ids.includes(value)) ids.push(value);
  }
  if (ids.length === 0) throw invalidOption(option, `enter at least one ${noun} id, e.g. 4321`);
  if (ids.length > max) throw invalidOption(option, `enter at most ${max} ${noun} ids (got ${ids.length})`);
  return ids;
}

export interface StickerSelector {
  id: number;
  /** Absent: the sticker may sit in any slot. */
  slot?: number;
}

/** Sticker selectors "stickerId|slot", slot optional: "123|0, 456" -> [{id:123, slot:0}, {id:456}]. */
export function parseStickerSelectors(option: string, raw: RawOption): StickerSelector[] {
  const text = asText(raw);
  if (text.length > MAX_STICKER_SELECTORS * 16 + 100) {
    throw invalidOption(option, `is too long; enter at most ${MAX_STICKER_SELECTORS} stickers`);
  }
  const selectors: StickerSelector[] = [];
  // "123 | 0" is one selector; join the pipe before splitting on spaces.
  for (const token of tokens(text.replace(/\s*\|\s*/g, "|"))) {
    const m = /^(\d{1,10})(?:\|(\d{1,2}))?$/.exec(token);
    const id = m ? Number(m[1]) : NaN;
    if (!m || !(id <= MAX_SMALL_ID)) {
      throw invalidOption(
        option,
        `${quote(token)} is not a sticker; write a sticker id, optionally with its slot, e.g. 123|0, 456`,
      );
    }
    const slotText = m[2];
    let selector: StickerSelector = { id };
    if (slotText !== undefined) {
      const slot = Number(slotText);
      if (slot < STICKER_SLOT_MIN || slot > STICKER_SLOT_MAX) {
        throw invalidOption(
          option,
          `${quote(token)}: slot must be from ${STICKER_SLOT_MIN} to ${STICKER_SLOT_MAX}`,
        );
      }
      selector = { id, slot };
      const clash = selectors.find((s) => s.slot === slot && s.id !== id);
      if (clash) {
        throw invalidOption(
          option,
          `slot ${slot} is given two stickers (${clash.id} and ${id}); one slot holds one sticker`,
        );
      }
    }
    if (!selectors.some((s) => s.id === selector.id && s.slot === selector.slot)) selectors.push(selector);
  }
  if (selectors.length === 0) throw invalidOption(option, "enter at least one sticker id, e.g. 123|0, 456");
  if (selectors.length > MAX_STICKER_SELECTORS) {
    throw invalidOption(option, `enter at most ${MAX_STICKER_SELECTORS} stickers (got ${selectors.length})`);
  }
  return selectors;
}

// ---------------------------------------------------------------------------------------------
// Free text

/**
 * Free text (item names, descriptions): trimmed, NFC-normalised, no control or bidi characters,
 * at most maxLen characters. Anything else (quotes, `<script>`, `'; DROP TABLE`) is kept as
 * text: it is stored through parameters and echoed through safeUserText, never interpreted.
 */
export function parseText(
  option: string,
  raw: RawOption,
  maxLen: number,
  opts: { allowEmpty?: boolean } = {},
): string {
  // Cheap guard before the code-point walk below: a string this long is over any limit.
  if (String(raw).length > maxLen * 4 + 16)
    throw invalidOption(option, `must be at most ${maxLen} characters`);
  const text = String(raw).normalize("NFC").trim();
  // Only invisible characters (zero-width spaces and joiners, BOM) reads as nothing: it is empty.
  if (text.replace(/[\p{Cf}\s]/gu, "") === "" && !opts.allowEmpty) {
    throw invalidOption(option, "must not be empty");
  }
  if (CONTROL_OR_BIDI.test(text)) {
    throw invalidOption(
      option,
      "contains control characters (such as line breaks or direction marks); type plain text",
    );
  }
  const length = [...text].length;
  if (length > maxLen) throw invalidOption(option, `must be at most ${maxLen} characters (got ${length})`);
  return text;
}
