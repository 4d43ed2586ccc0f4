// Shared by the reliability suites: what the user ends up reading, what the marketplace and the
// database saw, custom ids built with the real codec, and a small seeded random generator.
import { encodeCustomId } from "../../src/discord/customId.ts";
import {
  isEphemeral,
  textOf,
  userAnswer,
  withDeadline,
  type DoubleUser,
  type InteractionHandle,
  type StoredMessage,
} from "../support/discord.ts";
import type { Bot } from "../support/harness.ts";

export { isEphemeral, textOf, withDeadline };
/** Picks fuzz inputs reproducibly from a seed. */
export { seededRandom } from "../../src/util/rng.ts";

/** Generous for a loaded 2-core machine; a healthy answer takes milliseconds. */
export const ANSWER_DEADLINE_MS = 20_000;

/**
 * The message the user ends up reading: the last follow-up (refusals after a deferred update or a
 * public deferral arrive that way), else the reply or the edited deferral.
 */
export function answer(h: InteractionHandle, timeoutMs = ANSWER_DEADLINE_MS): Promise<StoredMessage> {
  return userAnswer(h, timeoutMs);
}

/**
 * Every message this interaction left visible: its reply (or deferral) and follow-ups. The message
 * a button sits on is not one of them (a component's @original); see `sourceEdited`.
 */
export function visibleMessages(bot: Bot, h: InteractionHandle): StoredMessage[] {
  const original =
    h.record.originalMessageId === h.record.sourceMessageId ? undefined : h.record.originalMessageId;
  const ids = [original, ...h.record.followUpIds].filter((id): id is string => id !== undefined);
  return ids
    .map((id) => bot.double.message(id))
    .filter((m): m is StoredMessage => m !== undefined && !m.deleted);
}

/** True when the interaction edited the message its button sits on. */
export function sourceEdited(bot: Bot, h: InteractionHandle): boolean {
  const id = h.record.sourceMessageId;
  const source = id === undefined ? undefined : bot.double.message(id);
  return source !== undefined && (source.editedAt !== undefined || source.deleted);
}

/** Requests the sandbox answered, all routes (control calls are not counted). */
export const upstreamTotal = (bot: Bot): number => bot.sandbox.control.stats().total;

/** Requests on one route, e.g. "POST /listings/buy". */
export const routeHits = (bot: Bot, route: string): number =>
  bot.sandbox.control.stats().routes[route]?.total ?? 0;

/** Tables a command could change; poller state and command registration are the bot's own. */
const TABLES = [
  "users",
  "watch_rules",
  "alert_log",
  "outbox",
  "tracked_bids",
  "tracked_trades",
  "tracked_buy_orders",
  "purchases",
] as const;

/** A fingerprint of every row of every user-data table: equal snapshots mean nothing changed. */
export async function dbSnapshot(bot: Bot): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    // Table names come from the constant list above, never from input.
    const rows = await bot.db.prisma.$queryRawUnsafe<{ n: bigint; h: string }[]>(
      `SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM ${table} t`,
    );
    const row = rows[0];
    out[table] = row ? `${row.n}:${row.h}` : "?";
  }
  return out;
}

/** A custom id as the bot would have made it (the real codec), for any action, owner or expiry. */
export function customId(action: string, subject: string, owner: DoubleUser, expiresAt?: number): string {
  return encodeCustomId({
    action,
    subject,
    owner: owner.id,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
}

/** The custom id of the button labelled exactly `label`; throws listing what is there. */
export function buttonId(m: StoredMessage, label: string): string {
  const found: { label: string; id: string }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== "object") return;
    const r = node as Record<string, unknown>;
    if (typeof r.custom_id === "string") found.push({ label: String(r.label ?? ""), id: r.custom_id });
    walk(r.components);
  };
  walk(m.components);
  const hit = found.find((b) => b.label === label);
  if (!hit) throw new Error(`no "${label}" button; the message has: ${found.map((b) => b.label).join(", ")}`);
  return hit.id;
}

/**
 * Text a person can act on: no stack traces, no "undefined", no raw zod or JSON, no generic
 * failure, no unescaped mass mention. Returns the problems found (empty when clean).
 */
export function inhumaneParts(text: string): string[] {
  const checks: [RegExp, string][] = [
    [/\bundefined\b/, '"undefined"'],
    [/\[object \w+\]/, "an [object ...]"],
    [/\n\s+at \S+|\.ts:\d+|node:internal/, "a stack trace"],
    [/ZodError|Invalid input: expected|"(code|path|issues)":/, "raw zod or JSON output"],
    [/\b(TypeError|RangeError|SyntaxError|ReferenceError)\b/, "an exception name"],
    [/Something went wrong \(error id/, "a generic failure instead of a reason"],
    [/@(everyone|here)/, "a live mass mention"],
  ];
  const problems = checks.filter(([re]) => re.test(text)).map(([, what]) => what);
  if (text.trim().length < 10) problems.push("an empty or one-word answer");
  if (text.length > 1500) problems.push(`a ${text.length}-character wall of text`);
  return problems;
}

/** Polls an async condition until it holds (for state outside the double: database rows). */
export async function until<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = ANSWER_DEADLINE_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
  }
}
