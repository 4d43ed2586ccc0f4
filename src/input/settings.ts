// Parsers for /account settings values: spend caps that can be switched off, quiet-hour windows
// ("22:00-07:00", optionally with a zone) and time zones (IANA names or whole-hour UTC offsets).
import { invalidOption } from "../errors.ts";
import type { Cents } from "../money.ts";
import { parsePrice, parseText, safeUserText, type RawOption } from "./parse.ts";

const OFF_WORDS = new Set(["off", "none", "no", "remove", "clear"]);

/** A cap in dollars, or "off"/"none" to remove it (null). */
export function parseCap(option: string, raw: RawOption): Cents | null {
  if (typeof raw === "string" && OFF_WORDS.has(raw.trim().toLowerCase())) return null;
  return parsePrice(option, raw);
}

export interface QuietWindow {
  /** Minutes after local midnight. */
  readonly startMinute: number;
  readonly endMinute: number;
  /** Set when the text named a zone after the window ("22:00-07:00 Europe/Berlin"). */
  readonly timezone: string | undefined;
}

const TIME = /^(\d{1,2})(?::(\d{2}))?$/;

function minuteOfDay(option: string, text: string): number {
  const m = TIME.exec(text);
  const hours = Number(m?.[1] ?? NaN);
  const minutes = Number(m?.[2] ?? "0");
  if (!m || hours > 24 || minutes > 59 || (hours === 24 && minutes !== 0)) {
    throw invalidOption(
      option,
      `"${safeUserText(text, 12)}" is not a time; write 24-hour times like 22:00-07:00`,
    );
  }
  return (hours % 24) * 60 + minutes;
}

/**
 * "22:00-07:00", "22-7", "22:30–06:45 UTC+2", "23:00 to 07:00 Europe/Berlin" -> a window that may
 * wrap past midnight; "off" or "none" -> null (no quiet hours).
 */
export function parseQuietHours(option: string, raw: RawOption): QuietWindow | null {
  const text = parseText(option, raw, 80);
  if (OFF_WORDS.has(text.toLowerCase())) return null;
  const m = /^(\d{1,2}(?::\d{2})?)\s*(?:-|–|—|to)\s*(\d{1,2}(?::\d{2})?)(?:\s+(\S+))?$/i.exec(text);
  if (!m?.[1] || !m[2]) {
    throw invalidOption(
      option,
      'write a window like 22:00-07:00 (optionally with a zone: "22:00-07:00 Europe/Berlin"), or off',
    );
  }
  const startMinute = minuteOfDay(option, m[1]);
  const endMinute = minuteOfDay(option, m[2]);
  if (startMinute === endMinute)
    throw invalidOption(option, "the start and end are the same time; give a window, or off");
  return { startMinute, endMinute, timezone: m[3] === undefined ? undefined : parseTimeZone(option, m[3]) };
}

/**
 * An IANA zone ("Europe/Berlin", any letter case) or a UTC offset in whole hours ("UTC+2",
 * "+02:00", "GMT-5"). Offsets are stored as the equivalent fixed zone (Etc/GMT-2 is UTC+2: the
 * Etc names invert the sign); half-hour offsets need the region's name.
 */
export function parseTimeZone(option: string, raw: RawOption): string {
  const text = parseText(option, raw, 64);
  const offset = /^(?:utc|gmt|z)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (offset) {
    const hours = Number(offset[2]);
    const minutes = Number(offset[3] ?? "0");
    const sign = offset[1] === "-" ? -1 : 1;
    if (minutes !== 0) {
      throw invalidOption(
        option,
        "offsets with minutes need the zone's name, e.g. Asia/Kolkata or America/St_Johns",
      );
    }
    if (hours > 14 || (sign < 0 && hours > 12))
      throw invalidOption(option, "UTC offsets run from -12 to +14");
    if (hours === 0) return "UTC";
    return `Etc/GMT${sign > 0 ? "-" : "+"}${hours}`;
  }
  if (/^(utc|gmt|z)$/i.test(text)) return "UTC";
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{1,63}$/.test(text)) {
    throw invalidOption(option, "write a zone name like Europe/Berlin, or a UTC offset like UTC+2");
  }
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    throw invalidOption(
      option,
      `"${safeUserText(text, 40)}" is not a known time zone; try a name like Europe/Berlin or UTC+2`,
    );
  }
}

/** "Etc/GMT-2" -> "UTC+2"; other zones as they are. */
export function timeZoneLabel(zone: string): string {
  const m = /^Etc\/GMT([+-])(\d{1,2})$/.exec(zone);
  if (!m) return zone;
  return `UTC${m[1] === "-" ? "+" : "-"}${m[2]}`;
}
