// Links a Discord user to a marketplace API key: checks the key with a cheap authenticated call,
// then stores it sealed. The key itself never leaves this function except encrypted.
import { UserFacingError } from "../errors.ts";
import { AccountLinkedElsewhere } from "../db/errors.ts";
import { ensureUser, linkUser, type LinkOutcome } from "../db/repos/users.ts";
import { isMarketError } from "../market/errors.ts";
import type { StoppedAutomation } from "../db/repos/automation.ts";
import type { AccountDeps } from "./deps.ts";

export interface LinkedAccount {
  /** The platform user name, when the marketplace told us (best effort). */
  readonly platformName: string | undefined;
  readonly platformId: string | undefined;
  /** "…a1b2": what the user may see of their key. */
  readonly fingerprint: string;
  /**
   * Automation of the previous link, stopped because this link may be another account (a new key
   * for the same, active account keeps it). It never comes back without a new confirmation.
   */
  readonly stopped: StoppedAutomation;
}

/** Printable ASCII without spaces: what an API key looks like, and all we accept. */
const KEY_SHAPE = /^[\x21-\x7e]{8,256}$/;

export const LINKED_ELSEWHERE =
  "That marketplace account is already linked to another Discord user, and one account can be linked to one Discord user at a time. Unlink it there first with `/account unlink`, then run `/account link` here again. Nothing was changed.";

export const KEY_REJECTED =
  "That key was rejected by the marketplace — it may be mistyped, revoked or expired. Create or copy a key in your marketplace account settings and run `/account link` again.";

export async function linkAccount(
  deps: AccountDeps,
  input: { readonly discordUserId: string; readonly apiKey: string },
): Promise<LinkedAccount> {
  const log = deps.logger.child({ module: "accounts", discordUserId: input.discordUserId });
  const key = input.apiKey.trim();
  if (!KEY_SHAPE.test(key)) {
    throw new UserFacingError(
      "invalid_input",
      "That does not look like an API key (8-256 characters, no spaces). Paste the key exactly as the marketplace shows it.",
    );
  }
  const api = deps.market.forKey(key);
  let platformName: string | undefined;
  let platformId: string | undefined;
  try {
    // Not in the published spec: only a nicety to greet the user by name.
    const me = await api.getMe();
    platformName = me.user.username;
    platformId = me.user.platform_id;
  } catch (error) {
    if (isMarketError(error, "unauthorized")) throw new UserFacingError("key_revoked", KEY_REJECTED);
    log.debug(
      { kind: isMarketError(error) ? error.kind : "unknown" },
      "who-am-i lookup unavailable; continuing",
    );
  }
  try {
    // The check that counts: an authenticated call every key can make, reading one ledger entry.
    await api.getTransactions({ limit: 1 });
  } catch (error) {
    if (isMarketError(error, "unauthorized")) throw new UserFacingError("key_revoked", KEY_REJECTED);
    throw error;
  }
  const fingerprint = deps.vault.fingerprint(key);
  // The sealed key is bound to the user's row, so the row must exist first.
  const row = await ensureUser(deps.prisma, input.discordUserId);
  let outcome: LinkOutcome;
  try {
    outcome = await linkUser(deps.prisma, {
      discordId: input.discordUserId,
      encryptedKey: deps.vault.encrypt(key, row.id),
      keyId: deps.vault.keyId,
      keyFingerprint: fingerprint,
      platformId: platformId ?? null,
      platformName: platformName ?? null,
    });
  } catch (error) {
    if (!(error instanceof AccountLinkedElsewhere)) throw error;
    log.info({ fingerprint, platformId }, "link refused: the account is linked to another Discord user");
    throw new UserFacingError("conflict", LINKED_ELSEWHERE, { platformId });
  }
  const { stopped, sameAccount } = outcome;
  log.info(
    {
      fingerprint,
      platformId,
      sameAccount,
      rulesDisarmed: stopped.rules.length,
      guardsOff: stopped.guards.length,
    },
    "account linked",
  );
  return { platformName, platformId, fingerprint, stopped };
}
