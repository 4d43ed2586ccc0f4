// Marketplace ids are time-ordered 64-bit "snowflakes" (docs/live-service.md): the creation time of
// a record is in its id, to the millisecond, where a `created_at` field may be a zero time.

/** The snowflakes' epoch: 2019-01-01T00:00:00Z, in ms. */
const EPOCH_MS = 1_546_300_800_000n;
/** The low bits of a snowflake that are not time. */
const TIME_SHIFT = 22n;
const DIGITS = /^\d{1,20}$/;
const MAX_ID = (1n << 64n) - 1n;

/** When the record with this id was made, or undefined for an id that is no snowflake. */
export function snowflakeTime(id: string): Date | undefined {
  if (!DIGITS.test(id)) return undefined;
  const n = BigInt(id);
  if (n > MAX_ID) return undefined;
  const since = n >> TIME_SHIFT;
  // No time bits at all: a small counter, not a snowflake.
  if (since === 0n) return undefined;
  return new Date(Number(since + EPOCH_MS));
}
