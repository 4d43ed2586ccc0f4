// The one codec for button, select and modal ids: `action:subject:owner[:expiresAt]`, checked with zod.
import { z } from "zod";

/** What a component carries across restarts: no in-memory state is needed to act on a click. */
export interface CustomId {
  /** Handler key, e.g. "acct.unlink" (registered by exactly one command module). */
  readonly action: string;
  /** What it acts on, e.g. a listing or rule id; "" when nothing. */
  readonly subject: string;
  /** Discord id of the only user allowed to use it. */
  readonly owner: string;
  /** Unix milliseconds after which the id is refused (second precision). */
  readonly expiresAt?: number;
}

export type DecodedCustomId =
  { readonly ok: true; readonly id: CustomId } | { readonly ok: false; readonly reason: "malformed" };

export const MAX_CUSTOM_ID_LENGTH = 100;

// Sized so that every well-formed id fits Discord's 100 characters: 24 + 45 + 20 + 7 + 3 separators.
const ACTION = /^[a-z][a-z0-9_.-]{0,23}$/;
const SUBJECT = /^[A-Za-z0-9_.-]{0,45}$/;
const OWNER = /^\d{15,20}$/;
/** Unix seconds in base 36; 7 digits last until the year 4453. */
const EXPIRES = /^[0-9a-z]{1,7}$/;

/** Parses the text of a custom id; the action, subject, owner and expiry each have a fixed alphabet. */
const CustomIdText = z
  .string()
  .max(MAX_CUSTOM_ID_LENGTH)
  .transform((text) => text.split(":"))
  .pipe(
    z.union([
      z.tuple([z.string().regex(ACTION), z.string().regex(SUBJECT), z.string().regex(OWNER)]),
      z.tuple([
        z.string().regex(ACTION),
        z.string().regex(SUBJECT),
        z.string().regex(OWNER),
        z.string().regex(EXPIRES),
      ]),
    ]),
  )
  .transform(([action, subject, owner, expires]): CustomId => {
    const base = { action, subject, owner };
    return expires === undefined ? base : { ...base, expiresAt: parseInt(expires, 36) * 1000 };
  });

export class CustomIdError extends Error {
  override readonly name = "CustomIdError";
}

/** Encodes an id; throws CustomIdError (a programming error) when a part breaks the format. */
export function encodeCustomId(id: CustomId): string {
  if (!ACTION.test(id.action)) throw new CustomIdError(`bad custom id action: ${id.action}`);
  if (!SUBJECT.test(id.subject)) throw new CustomIdError(`bad custom id subject for ${id.action}`);
  if (!OWNER.test(id.owner)) throw new CustomIdError(`bad custom id owner for ${id.action}`);
  const parts = [id.action, id.subject, id.owner];
  if (id.expiresAt !== undefined) parts.push(Math.ceil(id.expiresAt / 1000).toString(36));
  const text = parts.join(":");
  if (text.length > MAX_CUSTOM_ID_LENGTH) throw new CustomIdError(`custom id too long for ${id.action}`);
  return text;
}

export function decodeCustomId(text: string): DecodedCustomId {
  const parsed = CustomIdText.safeParse(text);
  return parsed.success ? { ok: true, id: parsed.data } : { ok: false, reason: "malformed" };
}

export function isExpired(id: CustomId, nowMs: number): boolean {
  return id.expiresAt !== undefined && nowMs >= id.expiresAt;
}
