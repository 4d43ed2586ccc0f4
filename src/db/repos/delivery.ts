// What delivery (src/outbox/delivery.ts) reads and changes beside the outbox's claim and settle
// (outbox.ts): a claimed row held for quiet hours or sent to a channel instead, the held count a
// digest starts from, and the users and rules a batch is sent for.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

async function settle(
  db: Db,
  id: number,
  workerId: string,
  data: Prisma.OutboxUpdateManyMutationInput,
): Promise<boolean> {
  const res = await db.outbox.updateMany({
    where: { id, lockedBy: workerId, status: "sending" },
    data: { ...data, lockedBy: null, lockedUntil: null },
  });
  return res.count === 1;
}

/** Quiet hours: the claimed row waits, and the claim does not count as an attempt. */
export function holdClaimed(db: Db, id: number, workerId: string): Promise<boolean> {
  return settle(db, id, workerId, { status: "held", attempts: { decrement: 1 } });
}

/** Closed DMs: the claimed row goes to a channel instead, due at once. */
export function redirectClaimed(
  db: Db,
  id: number,
  workerId: string,
  channelId: string,
  reason: string,
): Promise<boolean> {
  return settle(db, id, workerId, {
    status: "pending",
    destination: "channel",
    channelId,
    nextAttemptAt: new Date(),
    lastError: reason,
  });
}

/** How many of the user's messages wait for the end of their quiet hours. */
export function countHeld(db: Db, userId: number): Promise<number> {
  return db.outbox.count({ where: { userId, status: "held" } });
}

/** What delivery needs about the users of a batch: quiet hours and where a closed DM falls back to. */
export function deliveryUsers(db: Db, ids: readonly number[]) {
  return db.user.findMany({
    where: { id: { in: [...ids] } },
    select: {
      id: true,
      quietHoursStart: true,
      quietHoursEnd: true,
      timezone: true,
      dmClosedAt: true,
      defaultChannelId: true,
    },
  });
}

/** The channel of the rule behind an alert, if the rule has one. */
export async function ruleChannelOfAlert(db: Db, alertId: number): Promise<string | undefined> {
  const row = await db.alertLog.findUnique({
    where: { id: alertId },
    select: { rule: { select: { channelId: true } } },
  });
  return row?.rule?.channelId ?? undefined;
}

/** The user's Discord id when the bot keeps no DM channel with them (one is worth opening). */
export async function dmChannelToOpen(db: Db, userId: number): Promise<string | undefined> {
  const row = await db.user.findFirst({
    where: { id: userId, dmChannelId: null },
    select: { discordId: true },
  });
  return row?.discordId;
}
