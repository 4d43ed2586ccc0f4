// Actions waiting for a confirmation button: stored, then taken once (a double click, a second
// replica or an expired button finds nothing and acts on nothing).
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

/** 16 characters of base64url: fits a button's custom id, cannot be guessed. */
function newToken(): string {
  return randomBytes(12).toString("base64url");
}

export async function createDraft(
  db: Db,
  input: { userId: number; kind: string; payload: Prisma.InputJsonValue; ttlMs: number; now?: Date },
): Promise<{ id: string; expiresAt: Date }> {
  const now = input.now ?? new Date();
  const expiresAt = new Date(now.getTime() + input.ttlMs);
  const id = newToken();
  await db.draft.create({
    data: { id, userId: input.userId, kind: input.kind, payload: input.payload, expiresAt },
  });
  // Drafts nobody confirmed are cleared as new ones are made.
  await db.draft.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 60 * 60_000) } } });
  return { id, expiresAt };
}

export type TakenDraft<T> =
  { readonly ok: true; readonly payload: T } | { readonly ok: false; readonly reason: "missing" | "expired" };

/**
 * Takes the user's draft once: deleted in the same statement that reads it, so two presses (or
 * two replicas) cannot both act. The payload is parsed with `schema`.
 */
export async function takeDraft<T>(
  db: Db,
  input: { id: string; userId: number; kind: string; schema: z.ZodType<T>; now?: Date },
): Promise<TakenDraft<T>> {
  const rows = await db.$queryRaw<{ payload: unknown; expires_at: Date }[]>`
    DELETE FROM drafts WHERE id = ${input.id} AND user_id = ${input.userId} AND kind = ${input.kind}
    RETURNING payload, expires_at`;
  const row = rows[0];
  if (!row) return { ok: false, reason: "missing" };
  if (row.expires_at.getTime() <= (input.now ?? new Date()).getTime())
    return { ok: false, reason: "expired" };
  return { ok: true, payload: input.schema.parse(row.payload) };
}

/** The user's unexpired draft, read without taking it (a form shown from it may be cancelled). */
export async function peekDraft<T>(
  db: Db,
  input: { id: string; userId: number; kind: string; schema: z.ZodType<T>; now?: Date },
): Promise<T | undefined> {
  const row = await db.draft.findFirst({
    where: {
      id: input.id,
      userId: input.userId,
      kind: input.kind,
      expiresAt: { gt: input.now ?? new Date() },
    },
  });
  const parsed = input.schema.safeParse(row?.payload);
  return parsed.success ? parsed.data : undefined;
}

/** Deletes a draft by its id (a Cancel button: the id is unguessable and the button its owner's). */
export async function discardDraft(db: Db, id: string): Promise<void> {
  await db.draft.deleteMany({ where: { id } });
}
