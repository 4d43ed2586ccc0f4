// What a user has linked, read from the database only (no marketplace call).
import { countRules } from "../db/repos/rules.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import type { AccountDeps } from "./deps.ts";

export type AccountStatus =
  | { readonly linked: false; readonly ruleCount: number }
  | {
      readonly linked: true;
      /** "revoked" once the marketplace refused the key. */
      readonly status: "active" | "revoked";
      readonly platformName: string | undefined;
      readonly platformId: string | undefined;
      readonly fingerprint: string;
      readonly linkedAt: Date | undefined;
      readonly revokedAt: Date | undefined;
      readonly ruleCount: number;
    };

export async function accountStatus(
  deps: Pick<AccountDeps, "prisma">,
  input: { readonly discordUserId: string },
): Promise<AccountStatus> {
  const user = await getUserByDiscordId(deps.prisma, input.discordUserId);
  if (!user) return { linked: false, ruleCount: 0 };
  const ruleCount = await countRules(deps.prisma, user.id);
  if (user.encryptedKey === null || user.status === "unlinked") return { linked: false, ruleCount };
  return {
    linked: true,
    status: user.status === "revoked" ? "revoked" : "active",
    platformName: user.platformName ?? undefined,
    platformId: user.platformId ?? undefined,
    fingerprint: user.keyFingerprint ?? "…",
    linkedAt: user.linkedAt ?? undefined,
    revokedAt: user.revokedAt ?? undefined,
    ruleCount,
  };
}
