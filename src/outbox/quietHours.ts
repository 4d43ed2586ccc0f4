// Quiet hours: whether a user's local clock is inside their window, and when the window ends.

export interface QuietHours {
  /** Minutes after local midnight; start === end means no quiet hours. */
  startMinute: number;
  endMinute: number;
  /** IANA zone name; an unknown zone falls back to UTC rather than failing delivery. */
  timezone: string;
}

export type QuietState = { quiet: false } | { quiet: true; endsAt: Date };

const DAY_MINUTES = 24 * 60;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-GB", {
        timeZone: timezone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      });
    } catch {
      f = formatterFor("UTC");
    }
    formatters.set(timezone, f);
  }
  return f;
}

/** Minutes after local midnight of `at` in `timezone`. */
export function localMinute(at: Date, timezone: string): number {
  const parts = formatterFor(timezone).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return (hour % 24) * 60 + minute;
}

/**
 * Inside [start, end) in local time; a window may wrap past midnight (22:00–07:00). The end
 * is computed by walking forward in minutes, so a DST change inside the window lands at most a
 * few minutes off, and the worker re-checks before it releases anything.
 */
export function quietState(hours: QuietHours | undefined, at: Date): QuietState {
  if (hours === undefined) return { quiet: false };
  const { startMinute: start, endMinute: end } = hours;
  if (start === end) return { quiet: false };
  const m = localMinute(at, hours.timezone);
  const inside = start < end ? m >= start && m < end : m >= start || m < end;
  if (!inside) return { quiet: false };
  const minutesLeft = (end - m + DAY_MINUTES) % DAY_MINUTES;
  const startOfMinute = at.getTime() - (at.getTime() % 60_000);
  return { quiet: true, endsAt: new Date(startOfMinute + minutesLeft * 60_000) };
}

/** A user's quiet hours from their settings row, or undefined when none are set. */
export function quietHoursOf(user: {
  quietHoursStart: number | null;
  quietHoursEnd: number | null;
  timezone: string;
}): QuietHours | undefined {
  if (user.quietHoursStart === null || user.quietHoursEnd === null) return undefined;
  return { startMinute: user.quietHoursStart, endMinute: user.quietHoursEnd, timezone: user.timezone };
}
