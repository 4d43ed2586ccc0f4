// The one "linked and active" check behind /account's gate, guards, auto-accept and live arming.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINK_FIRST, requireLinkedUser } from "../../src/accounts/requireLinkedUser.ts";
import { ensureUser, linkUser, markRevoked } from "../../src/db/repos/users.ts";
import { UserFacingError } from "../../src/errors.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { standInLink } from "../support/links.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
const discordId = () => `${910000000000000000n + BigInt(++seq)}`;
const link = (id: string) => linkUser(db.prisma, standInLink(id)).then((o) => o.user);

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserFacingError);
  const { code, userMessage } = err as UserFacingError;
  return { code, message: userMessage };
}

describe("requireLinkedUser", () => {
  it("GIVEN an active link WHEN asked by id or by Discord id THEN the user comes back with their key", async () => {
    const id = discordId();
    const user = await link(id);
    const byId = await requireLinkedUser(db.prisma, user.id);
    const byDiscord = await requireLinkedUser(db.prisma, { discordId: id });
    expect(byId).toMatchObject({ id: user.id, status: "active", encryptedKey: user.encryptedKey });
    expect(byDiscord).toEqual(byId);
  });

  it("GIVEN no user, a user without a key, or an unlinked one WHEN asked THEN not_linked with the caller's words", async () => {
    const unknown = discordId();
    const keyless = await ensureUser(db.prisma, discordId());
    const unlinkedWithKey = await link(discordId());
    await db.prisma.user.update({ where: { id: unlinkedWithKey.id }, data: { status: "unlinked" } });
    for (const who of [{ discordId: unknown }, keyless.id, unlinkedWithKey.id]) {
      expect(await refusal(requireLinkedUser(db.prisma, who))).toEqual({
        code: "not_linked",
        message: LINK_FIRST,
      });
      expect(
        await refusal(requireLinkedUser(db.prisma, who, { notLinked: "link first", revoked: "x" })),
      ).toEqual({ code: "not_linked", message: "link first" });
    }
  });

  it("GIVEN a revoked link WHEN asked THEN key_revoked where the caller words it, else not_linked", async () => {
    const user = await link(discordId());
    await markRevoked(db.prisma, user.id);
    expect(await refusal(requireLinkedUser(db.prisma, user.id))).toEqual({
      code: "not_linked",
      message: LINK_FIRST,
    });
    expect(
      await refusal(requireLinkedUser(db.prisma, user.id, { notLinked: "link first", revoked: "relink" })),
    ).toEqual({ code: "key_revoked", message: "relink" });
  });
});
