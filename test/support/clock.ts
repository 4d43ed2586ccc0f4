// Fixture times relative to the test's clock. A fixed date in a fixture turns the suite red on the
// day the real clock passes it (an auction "ending" on a date now past answers "This auction has
// ended"), so every time a test hands to code that compares it with a clock is made here, from that
// clock. `.ci/run` runs the files that hold times with the clock a year ahead to prove it.

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The ISO time `offsetMs` from `now` (the real clock unless the test has its own). */
export function isoFromNow(offsetMs: number, now: number = Date.now()): string {
  return new Date(now + offsetMs).toISOString();
}

/** The ISO time `hours` after `now` (before it when negative). */
export const hoursFromNow = (hours: number, now?: number): string => isoFromNow(hours * HOUR_MS, now);

/** The calendar day (YYYY-MM-DD, UTC) `days` before `now`. */
export const dayAgo = (days: number, now?: number): string => isoFromNow(-days * DAY_MS, now).slice(0, 10);
