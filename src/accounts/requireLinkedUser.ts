// The one "linked and active" check: a user row with a stored key whose link is active. Commands
// acting with the key (requireAccount), guards, auto-accept and live arming all ask it.
import { getUserByDiscordId, getUserById, type UserRecord } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";
import { UserFacingError } from "../errors.ts";

/** A user whose link is active and whose key is stored. */
export type LinkedUserRecord = UserRecord & { readonly encryptedKey: string };

/** Which user: the bot's own id, or their Discord id. */
export type UserRef = number | { readonly discordId: string };

export const LINK_FIRST = "Link your marketplace account first with /account link.";

/** What a user without an active link is told. */
export interface LinkRefusal {
  /** `not_linked`: no user row, no stored key, or a link that is not active. */
  readonly notLinked: string;
  /** When given, a revoked link is refused with this (`key_revoked`) rather than `notLinked`. */
  readonly revoked?: string | undefined;
}

export async function requireLinkedUser(
  db: Db,
  who: UserRef,
  refusal: LinkRefusal = { notLinked: LINK_FIRST },
): Promise<LinkedUserRecord> {
  const user =
    typeof who === "number" ? await getUserById(db, who) : await getUserByDiscordId(db, who.discordId);
  if (user === null || user.encryptedKey === null) throw new UserFacingError("not_linked", refusal.notLinked);
  if (user.status === "revoked" && refusal.revoked !== undefined) {
    throw new UserFacingError("key_revoked", refusal.revoked);
  }
  if (user.status !== "active") throw new UserFacingError("not_linked", refusal.notLinked);
  return { ...user, encryptedKey: user.encryptedKey };
}
