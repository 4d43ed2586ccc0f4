// A link as repository tests need it: a stand-in sealed key (nothing opens it) and a platform
// account of the user's own (one account is linked to one Discord user at a time), for tests
// that link users straight through the users repository.
import type { LinkInput } from "../../src/db/repos/users.ts";

/** The link of `discordId` with a stand-in key; `overrides` sets the account or another key. */
export function standInLink(
  discordId: string,
  overrides: Partial<Omit<LinkInput, "discordId">> = {},
): LinkInput {
  return {
    discordId,
    encryptedKey: `v1:abcd1234:iv:tag:ct${discordId}`,
    keyId: "abcd1234",
    keyFingerprint: "…a1b2",
    platformId: `7656${discordId}`,
    platformName: "trader",
    ...overrides,
  };
}
