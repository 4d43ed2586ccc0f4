// Money is integer cents inside; users type and read US dollars.
export type Cents = number;

/** Whole dollars either plain ("1234") or in correct thousands groups ("1,234"), then 0-2 decimals. */
const DOLLARS = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

/** Largest amount a user may type (one billion dollars): beyond it is almost surely a typo. */
export const MAX_CENTS = 100_000_000_000;

/**
 * Parses a user-typed dollar amount ("12.5", "$3", "1,234.56") into cents.
 * Returns undefined for anything else: "abc", "-1", "1e999", "1.234", "", NaN.
 */
export function parseDollars(input: string | number): Cents | undefined {
  const text = (typeof input === "number" ? String(input) : input).trim();
  if (typeof input === "number" && (!Number.isFinite(input) || input < 0)) return undefined;
  const m = DOLLARS.exec(text);
  if (!m) {
    // Numbers from Discord's Number options arrive as floats such as 12.5 or 0.1+0.2.
    if (typeof input === "number") {
      const cents = Math.round(input * 100);
      return Math.abs(cents - input * 100) < 1e-6 && cents <= MAX_CENTS ? cents : undefined;
    }
    return undefined;
  }
  const whole = (m[1] ?? "").replaceAll(",", "");
  // Too many digits cannot be under the cap; checking first keeps Number() in its exact range.
  if (whole.replace(/^0+/, "").length > 10) return undefined;
  const cents = Number(whole) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  return cents <= MAX_CENTS ? cents : undefined;
}

/** Formats cents as dollars with two decimals: 1250 -> "$12.50", 123456 -> "$1,234.56". */
export function formatCents(cents: Cents, opts: { sign?: boolean } = {}): string {
  const negative = cents < 0;
  const abs = Math.abs(Math.round(cents));
  const dollars = Math.floor(abs / 100).toLocaleString("en-US");
  const rest = String(abs % 100).padStart(2, "0");
  const sign = negative ? "-" : opts.sign && cents > 0 ? "+" : "";
  return `${sign}$${dollars}.${rest}`;
}

/** Percentage discount of a price below a reference (positive = cheaper than reference). */
export function discountPercent(price: Cents, reference: Cents | undefined): number | undefined {
  if (reference === undefined || reference <= 0) return undefined;
  return ((reference - price) / reference) * 100;
}
