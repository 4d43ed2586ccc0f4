// Linked accounts: the encrypted key, link status, and per-user settings.
import type { Prisma, User } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { isUniqueViolation, nullableCentsFromDb, nullableCentsToDb, withTransaction } from "../types.ts";
import { AccountLinkedElsewhere } from "../errors.ts";
import { NOTHING_STOPPED, stopAutomationRows, type StoppedAutomation } from "./automation.ts";

export type LinkStatus = "active" | "revoked" | "unlinked";
export type Destination = "dm" | "channel";

export interface UserSettings {
  defaultDestination: Destination;
  defaultGuildId: string | null;
  defaultChannelId: string | null;
  perPurchaseCapCents: number | null;
  dailyCapCents: number | null;
  alerts: { listing: boolean; outbid: boolean; trade: boolean; buyOrder: boolean };
  /** Minutes after local midnight; null when the user has none. */
  quietHours: { startMinute: number; endMinute: number } | null;
  timezone: string;
}

export interface UserRecord {
  id: number;
  discordId: string;
  status: LinkStatus;
  /** The sealed key (decrypt with the key vault); null when not linked. */
  encryptedKey: string | null;
  keyId: string | null;
  keyFingerprint: string | null;
  platformId: string | null;
  platformName: string | null;
  linkedAt: Date | null;
  /** Bumped whenever the linked account may have changed: automation is bound to one value. */
  linkGeneration: number;
  revokedAt: Date | null;
  revokedNotifiedAt: Date | null;
  dmClosedAt: Date | null;
  settings: UserSettings;
  createdAt: Date;
}

export interface LinkInput {
  discordId: string;
  encryptedKey: string;
  keyId: string;
  keyFingerprint: string;
  platformId: string | null;
  platformName: string | null;
}

export function toUserRecord(u: User): UserRecord {
  return {
    id: u.id,
    discordId: u.discordId,
    status: u.status,
    encryptedKey: u.encryptedKey,
    keyId: u.keyId,
    keyFingerprint: u.keyFingerprint,
    platformId: u.platformId,
    platformName: u.platformName,
    linkedAt: u.linkedAt,
    linkGeneration: u.linkGeneration,
    revokedAt: u.revokedAt,
    revokedNotifiedAt: u.revokedNotifiedAt,
    dmClosedAt: u.dmClosedAt,
    settings: toSettings(u),
    createdAt: u.createdAt,
  };
}

function toSettings(u: User): UserSettings {
  return {
    defaultDestination: u.defaultDestination,
    defaultGuildId: u.defaultGuildId,
    defaultChannelId: u.defaultChannelId,
    perPurchaseCapCents: nullableCentsFromDb(u.perPurchaseCapCents),
    dailyCapCents: nullableCentsFromDb(u.dailyCapCents),
    alerts: {
      listing: u.alertListing,
      outbid: u.alertOutbid,
      trade: u.alertTrade,
      buyOrder: u.alertBuyOrder,
    },
    quietHours:
      u.quietHoursStart !== null && u.quietHoursEnd !== null
        ? { startMinute: u.quietHoursStart, endMinute: u.quietHoursEnd }
        : null,
    timezone: u.timezone,
  };
}

export interface LinkOutcome {
  user: UserRecord;
  /** The same marketplace account as the active link before (a new key for it): automation goes on. */
  sameAccount: boolean;
  /** Automation of the previous link, stopped because the account may have changed. */
  stopped: StoppedAutomation;
}

/** Whether another Discord user has the account linked and active. */
async function linkedElsewhere(db: Db, { platformId, discordId }: LinkInput): Promise<boolean> {
  const where = { platformId, status: "active" as const, discordId: { not: discordId } };
  return platformId !== null && (await db.user.count({ where })) > 0;
}

/**
 * Links (or re-links) a Discord user to a key: status active, revocation cleared. Unless it is
 * a new key for the account already linked and active (the same platform id), the link
 * generation moves on and every automatic action of the previous link is stopped, in the same
 * transaction: automation never carries over to another (or an unknown) account. An account
 * another Discord user has linked is refused (AccountLinkedElsewhere) and nothing changes; of two
 * links at once, the unique index over active links lets one win and the other is refused.
 */
export async function linkUser(db: Db, input: LinkInput): Promise<LinkOutcome> {
  return withTransaction(db, async (tx) => {
    if (await linkedElsewhere(tx, input)) throw new AccountLinkedElsewhere();
    const now = new Date();
    const before = await tx.user.findUnique({ where: { discordId: input.discordId } });
    const sameAccount =
      before !== null &&
      before.status === "active" &&
      before.encryptedKey !== null &&
      before.platformId !== null &&
      before.platformId === input.platformId;
    const stopped =
      before === null || sameAccount
        ? NOTHING_STOPPED
        : await stopAutomationRows(tx, before.id, {
            shadow: false,
            reason: "another marketplace account was linked",
          });
    const key = {
      encryptedKey: input.encryptedKey,
      keyId: input.keyId,
      keyFingerprint: input.keyFingerprint,
      platformId: input.platformId,
      platformName: input.platformName,
      status: "active" as const,
      revokedAt: null,
      revokedNotifiedAt: null,
      ...(sameAccount ? {} : { linkedAt: now, linkGeneration: { increment: 1 } }),
    };
    const user = await tx.user.upsert({
      where: { discordId: input.discordId },
      create: { discordId: input.discordId, ...key, linkedAt: now, linkGeneration: 1 },
      update: key,
    });
    return { user: toUserRecord(user), sameAccount, stopped };
  }).catch(async (error: unknown) => {
    const lost = isUniqueViolation(error) && "$connect" in db && (await linkedElsewhere(db, input));
    throw lost ? new AccountLinkedElsewhere() : error;
  });
}

/** A row for a Discord user who has not linked a key (settings and rules need one). */
export async function ensureUser(db: Db, discordId: string): Promise<UserRecord> {
  const user = await db.user.upsert({
    where: { discordId },
    create: { discordId, status: "unlinked" },
    update: {},
  });
  return toUserRecord(user);
}

export async function getUserByDiscordId(db: Db, discordId: string): Promise<UserRecord | null> {
  const user = await db.user.findUnique({ where: { discordId } });
  return user ? toUserRecord(user) : null;
}

export async function getUserById(db: Db, id: number): Promise<UserRecord | null> {
  const user = await db.user.findUnique({ where: { id } });
  return user ? toUserRecord(user) : null;
}

/** Locks the user's row until the transaction `tx` ends: serialises that user's writes. */
export async function lockUser(tx: Db, userId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
}

/**
 * Marks an active link revoked (the marketplace refused the key). True only for the call that
 * changed it, so concurrent pollers send the "key revoked" DM once.
 */
export async function markRevoked(db: Db, userId: number): Promise<boolean> {
  const { count } = await db.user.updateMany({
    where: { id: userId, status: "active" },
    data: { status: "revoked", revokedAt: new Date() },
  });
  return count === 1;
}

/** Records that the user was told about the revocation; true only the first time. */
export async function markRevokedNotified(db: Db, userId: number): Promise<boolean> {
  const { count } = await db.user.updateMany({
    where: { id: userId, status: "revoked", revokedNotifiedAt: null },
    data: { revokedNotifiedAt: new Date() },
  });
  return count === 1;
}

/**
 * Forgets the key and stops everything polled or done with it: tracked bids, trades and buy
 * orders, and every automatic action (live-armed rules, guards, auto-accept), in one transaction.
 * Watch rules, shadow arming and settings stay: they do not need the user's key.
 */
export async function unlinkUser(
  db: Db,
  userId: number,
): Promise<{ wasLinked: boolean; stopped: StoppedAutomation }> {
  return withTransaction(db, async (tx) => {
    const stopped = await stopAutomationRows(tx, userId, {
      shadow: false,
      reason: "the account was unlinked",
    });
    const { count } = await tx.user.updateMany({
      where: { id: userId, encryptedKey: { not: null } },
      data: {
        encryptedKey: null,
        keyId: null,
        keyFingerprint: null,
        platformId: null,
        platformName: null,
        status: "unlinked",
        linkedAt: null,
        linkGeneration: { increment: 1 },
      },
    });
    await tx.trackedBid.deleteMany({ where: { userId } });
    await tx.trackedTrade.deleteMany({ where: { userId } });
    await tx.trackedBuyOrder.deleteMany({ where: { userId } });
    return { wasLinked: count === 1, stopped };
  });
}

/** Deletes the user and, by cascade, everything of theirs. */
export async function deleteUser(db: Db, discordId: string): Promise<boolean> {
  const { count } = await db.user.deleteMany({ where: { discordId } });
  return count === 1;
}

export interface SettingsPatch {
  defaultDestination?: Destination;
  defaultGuildId?: string | null;
  defaultChannelId?: string | null;
  perPurchaseCapCents?: number | null;
  dailyCapCents?: number | null;
  alerts?: Partial<UserSettings["alerts"]>;
  quietHours?: { startMinute: number; endMinute: number } | null;
  timezone?: string;
}

export async function getSettings(db: Db, userId: number): Promise<UserSettings | null> {
  const user = await db.user.findUnique({ where: { id: userId } });
  return user ? toSettings(user) : null;
}

/** Applies the given fields only; returns the settings after the change. */
export async function updateSettings(db: Db, userId: number, patch: SettingsPatch): Promise<UserSettings> {
  const data: Prisma.UserUpdateInput = {};
  if (patch.defaultDestination !== undefined) data.defaultDestination = patch.defaultDestination;
  if (patch.defaultGuildId !== undefined) data.defaultGuildId = patch.defaultGuildId;
  if (patch.defaultChannelId !== undefined) data.defaultChannelId = patch.defaultChannelId;
  if (patch.perPurchaseCapCents !== undefined)
    data.perPurchaseCapCents = nullableCentsToDb(patch.perPurchaseCapCents);
  if (patch.dailyCapCents !== undefined) data.dailyCapCents = nullableCentsToDb(patch.dailyCapCents);
  if (patch.alerts?.listing !== undefined) data.alertListing = patch.alerts.listing;
  if (patch.alerts?.outbid !== undefined) data.alertOutbid = patch.alerts.outbid;
  if (patch.alerts?.trade !== undefined) data.alertTrade = patch.alerts.trade;
  if (patch.alerts?.buyOrder !== undefined) data.alertBuyOrder = patch.alerts.buyOrder;
  if (patch.quietHours !== undefined) {
    const q = patch.quietHours;
    if (q !== null && (!isMinuteOfDay(q.startMinute) || !isMinuteOfDay(q.endMinute))) {
      throw new RangeError("quiet hours must be minutes of the day (0-1439)");
    }
    data.quietHoursStart = q?.startMinute ?? null;
    data.quietHoursEnd = q?.endMinute ?? null;
  }
  if (patch.timezone !== undefined) data.timezone = patch.timezone;
  const user = await db.user.update({ where: { id: userId }, data });
  return toSettings(user);
}

function isMinuteOfDay(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n < 24 * 60;
}

/**
 * Remembers that a DM bounced because the user closed DMs (Discord 50007). True the first
 * time, so the user is told once, next time they use a command.
 */
export async function markDmClosed(db: Db, userId: number): Promise<boolean> {
  const { count } = await db.user.updateMany({
    where: { id: userId, dmClosedAt: null },
    data: { dmClosedAt: new Date() },
  });
  return count === 1;
}

/**
 * Keeps the bot's DM channel with the user, so a later DM is one request (no channel open):
 * at Discord's 50 requests a second, a fan-out to users with a kept channel goes twice as fast.
 */
export async function rememberDmChannel(db: Db, userId: number, channelId: string): Promise<void> {
  await db.user.updateMany({ where: { id: userId }, data: { dmChannelId: channelId } });
}

/** Clears the closed-DM mark; true when one was set (so the caller shows the notice once). */
export async function clearDmClosed(db: Db, userId: number): Promise<boolean> {
  const { count } = await db.user.updateMany({
    where: { id: userId, dmClosedAt: { not: null } },
    data: { dmClosedAt: null },
  });
  return count === 1;
}

export interface KeyedUser {
  id: number;
  discordId: string;
  encryptedKey: string;
  keyId: string | null;
}

/** Users with an active key, in id order, a page at a time (bid, trade and buy-order pollers). */
export async function listActiveLinkedUsers(
  db: Db,
  opts: { afterId?: number; limit?: number } = {},
): Promise<KeyedUser[]> {
  const rows = await db.user.findMany({
    where: { status: "active", encryptedKey: { not: null }, id: { gt: opts.afterId ?? 0 } },
    orderBy: { id: "asc" },
    take: opts.limit ?? 500,
    select: { id: true, discordId: true, encryptedKey: true, keyId: true },
  });
  return rows.flatMap((r) => (r.encryptedKey === null ? [] : [{ ...r, encryptedKey: r.encryptedKey }]));
}

/** Users whose key is sealed under another encryption key than `keyId` (key rotation). */
export async function listUsersNotOnKey(
  db: Db,
  keyId: string,
  opts: { afterId?: number; limit?: number; includeOlderFormat?: boolean } = {},
): Promise<KeyedUser[]> {
  const rows = await db.user.findMany({
    where: {
      encryptedKey: { not: null },
      OR: [
        { keyId: null },
        { keyId: { not: keyId } },
        // Sealed with this key in the older format (not bound to the user): sealed again too.
        ...(opts.includeOlderFormat ? [{ encryptedKey: { startsWith: "v1:" } }] : []),
      ],
      id: { gt: opts.afterId ?? 0 },
    },
    orderBy: { id: "asc" },
    take: opts.limit ?? 500,
    select: { id: true, discordId: true, encryptedKey: true, keyId: true },
  });
  return rows.flatMap((r) => (r.encryptedKey === null ? [] : [{ ...r, encryptedKey: r.encryptedKey }]));
}

/** How many stored keys each encryption key id sealed (null: rows from before key ids). */
export function storedKeyCounts(db: Db): Promise<{ key_id: string | null; n: bigint }[]> {
  return db.$queryRaw<{ key_id: string | null; n: bigint }[]>`
    SELECT key_id, count(*)::bigint AS n FROM users WHERE encrypted_key IS NOT NULL GROUP BY key_id`;
}

/** Swaps a sealed key only if it is still the one read (a relink in between wins). */
export async function replaceEncryptedKey(
  db: Db,
  userId: number,
  previous: string,
  next: { encryptedKey: string; keyId: string },
): Promise<boolean> {
  const { count } = await db.user.updateMany({
    where: { id: userId, encryptedKey: previous },
    data: { encryptedKey: next.encryptedKey, keyId: next.keyId },
  });
  return count === 1;
}

/**
 * Takes the "your DMs could not be delivered" notice for the user, once per closure: the closure's
 * time (recorded as told) when their DMs are marked closed and they were not told of this closure.
 * `releaseDmNotice` gives it back when the reply carrying it could not be sent.
 */
export async function claimDmNotice(db: Db, discordId: string): Promise<Date | undefined> {
  const rows = await db.$queryRaw<{ dm_closed_at: Date }[]>`
    UPDATE users SET dm_noticed_at = dm_closed_at
    WHERE discord_id = ${discordId}
      AND dm_closed_at IS NOT NULL
      AND dm_noticed_at IS DISTINCT FROM dm_closed_at
    RETURNING dm_closed_at`;
  return rows[0]?.dm_closed_at;
}

export async function releaseDmNotice(db: Db, discordId: string): Promise<void> {
  await db.user.updateMany({ where: { discordId }, data: { dmNoticedAt: null } });
}
