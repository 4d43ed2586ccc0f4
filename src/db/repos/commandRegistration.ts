// Remembers the hash of the slash commands last registered per scope, to skip needless re-registration.
import type { Db } from "../types.ts";

/** `scope` is "global" or "guild:<id>". */
export async function getCommandHash(db: Db, scope: string): Promise<string | null> {
  const row = await db.commandRegistration.findUnique({ where: { scope } });
  return row?.hash ?? null;
}

export async function setCommandHash(db: Db, scope: string, hash: string): Promise<void> {
  await db.commandRegistration.upsert({
    where: { scope },
    create: { scope, hash },
    update: { hash, registeredAt: new Date() },
  });
}
