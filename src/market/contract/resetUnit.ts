// What an X-RateLimit-Reset value means. Known live: a unix time in seconds; anything else changes
// how long the bot would wait for a window, so it is drift (the doctor names the unit it inferred).
export type ResetUnit =
  "epoch seconds" | "epoch milliseconds" | "seconds from now" | "milliseconds from now" | "unreadable";

export const EXPECTED_RESET_UNIT: ResetUnit = "epoch seconds";

/** Longer than any window reported live (a few minutes to an hour): a delta this big is in milliseconds. */
const MAX_DELTA_SECONDS = 2 * 3600;

export function inferResetUnit(value: string | undefined): ResetUnit | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return "unreadable";
  const n = Number(text);
  if (n >= 1e12) return "epoch milliseconds";
  if (n >= 1e9) return "epoch seconds";
  return n > MAX_DELTA_SECONDS ? "milliseconds from now" : "seconds from now";
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
