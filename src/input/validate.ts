// Checks of values the verbs are given (ids, prices, counts, pages, floats), shared by every feature:
// each failure names the option the user typed.
import { invalidOption } from "../errors.ts";
import { formatCents, MAX_CENTS, type Cents } from "../money.ts";

const NUMERIC_ID = /^\d+$/;

/** Marketplace ids are numeric strings; anything else would be rejected (or walk a path). */
export function requireId(option: string, value: string): string {
  const id = value.trim();
  if (!NUMERIC_ID.test(id)) throw invalidOption(option, "must be a numeric id such as 123456789");
  return id;
}

/** Several ids, de-duplicated in order; at least one and at most `max`. */
export function requireIds(option: string, values: readonly string[], max: number): string[] {
  const ids = [...new Set(values.map((v) => requireId(option, v)))];
  if (ids.length === 0) throw invalidOption(option, "give at least one id");
  if (ids.length > max) throw invalidOption(option, `at most ${max} ids at once`);
  return ids;
}

/** Whole cents within [min, MAX_CENTS]. */
export function requireCents(option: string, value: Cents, min = 0): Cents {
  if (!Number.isSafeInteger(value) || value > MAX_CENTS)
    throw invalidOption(option, "must be an amount in dollars");
  if (value < min) throw invalidOption(option, `must be at least ${formatCents(min)}`);
  return value;
}

export function requireInt(option: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidOption(option, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** Zero-based page number of the marketplace's paged endpoints. */
export function requirePage(value: number | undefined): number {
  return value === undefined ? 0 : requireInt("page", value, 0, 10_000);
}

export function requireFloat(option: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw invalidOption(option, "must be between 0 and 1");
  return value;
}
