// Text helpers for messages: money, Discord timestamps, safe truncation and escaping of user text.
import { formatCents, type Cents } from "../../money.ts";

export { formatCents };

/** "$12.50"; signed "+$1.00" when asked. */
export function money(cents: Cents, opts: { sign?: boolean } = {}): string {
  return formatCents(cents, opts);
}

/** Discord renders `<t:unix:R>` as "in 5 minutes" / "3 days ago" in the reader's own locale. */
export function relativeTime(at: Date | number): string {
  return `<t:${unix(at)}:R>`;
}

/**
 * A deadline after "by" or "until": Discord's relative form reads "in 12 hours", so "by <R>"
 * would say "by in 12 hours". The date and time come first, the span in brackets:
 * "by 25 November 2026 22:40 (in 12 hours)".
 */
export function deadlineTime(at: Date | number): string {
  return `${absoluteTime(at)} (${relativeTime(at)})`;
}

/** Date and time in the reader's locale, e.g. "21 November 2025 09:40". */
export function absoluteTime(at: Date | number): string {
  return `<t:${unix(at)}:f>`;
}

/** A short span for people: "4 s", "12 min", "3.5 h", "2.0 days" (at least "1 s"). */
export function compactDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}

function unix(at: Date | number): number {
  return Math.floor((typeof at === "number" ? at : at.getTime()) / 1000);
}

/** Cuts to `max` characters with an ellipsis, never in the middle of a surrogate pair. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

/**
 * Text from outside (the marketplace, other users) made safe to show: no control characters,
 * no markdown or mention tricks, one line, bounded length.
 */
export function sanitise(text: string, max = 300): string {
  const clean = text
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/[`*_~|>\\]/g, "")
    .replace(/@(everyone|here)/gi, "@\u200b$1")
    .replace(/<[@#&!:][^>]*>/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return truncate(clean, max);
}
