// A user with at least one row in every table that can hold a user's data, for the export and delete tests.
import type { PrismaClient } from "../../src/generated/prisma/client.ts";

export interface SeededUser {
  readonly userId: number;
  readonly discordId: string;
  readonly platformId: string;
  readonly ruleId: number;
}

let n = 0;

/** Seeds `discordId` everywhere; rows carry `tag` so they are told apart from other users'. */
export async function seedEverything(
  prisma: PrismaClient,
  opts: { discordId: string; platformId: string; tag: string; armed?: "live" | "shadow" },
): Promise<SeededUser> {
  n += 1;
  const { tag } = opts;
  const user = await prisma.user.create({
    data: {
      discordId: opts.discordId,
      encryptedKey: `v1:sealed-${tag}-secret`,
      keyId: "k1",
      keyFingerprint: "…wxyz",
      platformId: opts.platformId,
      platformName: `trader-${tag}`,
      linkedAt: new Date(),
      quietHoursStart: 60,
      quietHoursEnd: 420,
    },
  });
  const userId = user.id;
  const rule = await prisma.watchRule.create({
    data: {
      userId,
      name: `rule ${tag}`,
      filters: { item: `Item ${tag}`, maxPriceCents: 4_000 },
      itemKey: `item ${tag}`,
      ...(opts.armed ? { armMode: opts.armed, armMaxBuys: 2, armedAt: new Date() } : {}),
    },
  });
  await prisma.seedTier.create({ data: { userId, name: `tier ${tag}`, seeds: [1, 2, 3] } });
  const alert = await prisma.alertLog.create({
    data: {
      userId,
      ruleId: rule.id,
      kind: "listing",
      subjectId: `9007199${n}0001`,
      version: "1",
      dedupeKey: `listing:${rule.id}:${tag}:1`,
    },
  });
  await prisma.outbox.create({
    data: {
      alertId: alert.id,
      userId,
      destination: "dm",
      payload: { alert: { kind: "listing", ruleName: `rule ${tag}` } },
      status: "sent",
      sentAt: new Date(),
    },
  });
  await prisma.outbox.create({
    data: { userId, destination: "dm", payload: { alert: { kind: "digest", tag } }, status: "pending" },
  });
  await prisma.trackedBid.create({ data: { userId, listingId: `bid-${tag}`, maxPriceCents: 1_500n } });
  await prisma.trackedTrade.create({
    data: { userId, tradeId: `trade-${tag}`, role: "buyer", lastKnownState: "pending" },
  });
  await prisma.trackedBuyOrder.create({ data: { userId, orderId: `order-${tag}` } });
  await prisma.purchase.create({
    data: {
      userId,
      idempotencyKey: `idem-${tag}`,
      kind: "buy",
      subjectId: `9007199${n}0002`,
      listingIds: [`9007199${n}0002`],
      unitPriceCents: 2_500n,
      totalCents: 2_500n,
      status: "succeeded",
      settledAt: new Date(),
    },
  });
  await prisma.draft.create({
    data: {
      id: `draft-${tag}-${n}`,
      userId,
      kind: "arm",
      payload: { ruleId: rule.id },
      expiresAt: new Date(Date.now() + 60_000),
    },
  });
  await prisma.autoBuy.create({
    data: {
      userId,
      ruleId: rule.id,
      listingId: `9007199${n}0003`,
      mode: "shadow",
      itemName: `Item ${tag}`,
      priceCents: 3_000n,
      outcome: "would_buy",
      seenAt: new Date(),
    },
  });
  await prisma.autoAcceptSetting.create({ data: { userId, enabled: true, minPriceCents: 1_000n } });
  await prisma.autoAccept.create({ data: { userId, tradeId: `accepted-${tag}`, outcome: "accepted" } });
  const guard = await prisma.guard.create({
    data: {
      userId,
      kind: "listing",
      subjectId: `listing-${tag}`,
      itemName: `Item ${tag}`,
      limitCents: 1_000n,
      stepCents: 1n,
      maxChangesPerDay: 10,
    },
  });
  await prisma.guardEvent.create({
    data: { guardId: guard.id, userId, kind: "change", fromCents: 1_200n, toCents: 1_199n, at: new Date() },
  });
  return { userId, discordId: opts.discordId, platformId: opts.platformId, ruleId: rule.id };
}
