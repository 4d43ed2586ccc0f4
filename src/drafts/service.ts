// Confirmation drafts as one service: an action shown with a confirm button is stored here, then
// taken once by the button (src/db/repos/drafts.ts: a double click, a second replica or an expired
// button acts on nothing). Handlers name the owner by users.id when they have it, else by Discord id.
import type { z } from "zod";
import { createDraft, discardDraft, peekDraft, takeDraft, type TakenDraft } from "../db/repos/drafts.ts";
import { ensureUser, getUserByDiscordId } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";

/** Whose draft: `userId` (users.id) when the handler already read the user, else their Discord id. */
export type DraftOwner = { readonly userId: number } | { readonly discordId: string };

/** A draft's payload: plain JSON. */
export type DraftPayload = Record<string, unknown>;

export interface DraftService {
  /** Stores a draft for `ttlMs` (a Discord id owner gets their user row first). */
  create(
    owner: DraftOwner,
    input: { kind: string; payload: DraftPayload; ttlMs: number },
  ): Promise<{ id: string; expiresAt: Date }>;
  /** Takes the owner's draft once, parsed with `schema`. */
  take<T>(
    owner: DraftOwner,
    input: { id: string; kind: string; schema: z.ZodType<T> },
  ): Promise<TakenDraft<T>>;
  /** Reads the owner's unexpired draft without taking it (a form that may still be cancelled). */
  peek<T>(
    owner: DraftOwner,
    input: { id: string; kind: string; schema: z.ZodType<T> },
  ): Promise<T | undefined>;
  /** A Cancel button: the draft goes, whoever's it is (its id is unguessable, the button its owner's). */
  discard(id: string): Promise<void>;
}

export function createDraftService(opts: { db: Db; now: () => Date }): DraftService {
  const { db } = opts;
  /** users.id of the owner; undefined when a Discord id has no user row (then no draft is theirs). */
  const userIdOf = async (owner: DraftOwner): Promise<number | undefined> =>
    "userId" in owner ? owner.userId : (await getUserByDiscordId(db, owner.discordId))?.id;
  return {
    async create(owner, input) {
      const userId = "userId" in owner ? owner.userId : (await ensureUser(db, owner.discordId)).id;
      return createDraft(db, {
        userId,
        kind: input.kind,
        // Plain JSON by contract; the repository takes Prisma's JSON input type.
        payload: input.payload as Parameters<typeof createDraft>[1]["payload"],
        ttlMs: input.ttlMs,
        now: opts.now(),
      });
    },
    async take(owner, input) {
      const userId = await userIdOf(owner);
      if (userId === undefined) return { ok: false, reason: "missing" };
      return takeDraft(db, { ...input, userId, now: opts.now() });
    },
    async peek(owner, input) {
      const userId = await userIdOf(owner);
      if (userId === undefined) return undefined;
      return peekDraft(db, { ...input, userId, now: opts.now() });
    },
    discard: (id) => discardDraft(db, id),
  };
}
