// The races that could let automation (or a poller) act on a stale picture, each pinned down on a
// real database: a commitment released by a poll that read the order list before the order
// opened; a short page taken for the end of a list; a guard or a queued auto-buy acting after a
// stop it read before; a failure that is not the marketplace's releasing money that may be spent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armRule } from "../../src/db/repos/autoBuys.ts";
import { stopAutomationRows } from "../../src/db/repos/automation.ts";
import { guardStillOn, saveGuard } from "../../src/db/repos/guards.ts";
import { createRule } from "../../src/db/repos/rules.ts";
import { getPurchaseByKey } from "../../src/db/repos/purchases.ts";
import { linkUser, unlinkUser, type UserRecord } from "../../src/db/repos/users.ts";
import { MarketError } from "../../src/market/errors.ts";
import { numberedPages, readMyBuyOrders } from "../../src/market/pagination.ts";
import type { BuyOrder } from "../../src/market/schemas.ts";
import {
  AutomationStopped,
  commitmentFailed,
  commitmentStands,
  releaseClosedOrders,
  reserveOrRefuse,
  RELEASE_MARGIN_MS,
} from "../../src/spending/guard.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { standInLink } from "../support/links.ts";

let db: TestDatabase;
let seq = 0;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

/** A new Discord user linked to an account of their own (`platformId`, or one made up for them). */
async function linked(platformId?: string): Promise<UserRecord> {
  seq += 1;
  const discordId = `${910000000000000000n + BigInt(seq)}`;
  const { user } = await linkUser(db.prisma, standInLink(discordId, platformId ? { platformId } : {}));
  return user;
}

async function liveRule(user: UserRecord, ceilingCents: number, maxBuys: number): Promise<number> {
  const created = await createRule(
    db.prisma,
    { userId: user.id, name: `r${seq}`, filters: {} },
    { maxRulesPerUser: 100 },
  );
  if (!created.ok) throw new Error("rule not created");
  const rule = created.rule;
  const armed = await armRule(db.prisma, {
    userId: user.id,
    ruleId: rule.id,
    mode: "live",
    maxBuys,
    at: new Date(Date.now() - 1_000),
    bound: {
      ceilingCents,
      budgetCents: ceilingCents * maxBuys,
      filters: {},
      linkGeneration: user.linkGeneration,
    },
  });
  expect(armed).toBe(true);
  return rule.id;
}

const order = (id: string): BuyOrder => ({ id, price: 100, qty: 1 }) as BuyOrder;

describe("the trade poller's release of closed orders", () => {
  it("GIVEN an order that opened after the poll began reading the order list WHEN the poll releases orders missing from the list THEN its commitment is kept, AND a later poll that read after it stood releases it", async () => {
    const user = await linked();
    const readStartedAt = new Date();
    // Placed while the list was being read: not in it.
    const c = await reserveOrRefuse(db.prisma, {
      userId: user.id,
      kind: "buy_order",
      idempotencyKey: `bo:${seq}`,
      subjectId: "555",
      unitPriceCents: 500,
      totalCents: 500,
    });
    await commitmentStands(db.prisma, c);

    expect(await releaseClosedOrders(db.prisma, user.id, new Set(), readStartedAt)).toBe(0);
    expect((await getPurchaseByKey(db.prisma, `bo:${seq}`))?.status).toBe("open");

    const later = new Date(Date.now() + RELEASE_MARGIN_MS + 1_000);
    expect(await releaseClosedOrders(db.prisma, user.id, new Set(["other"]), later)).toBe(1);
    expect((await getPurchaseByKey(db.prisma, `bo:${seq}`))?.status).toBe("released");
  });
});

describe("reading a whole list", () => {
  /** A service that caps pages at `cap` items whatever limit is asked, with or without a count. */
  const capped = (total: number, cap: number, withCount: boolean) => ({
    asked: 0,
    async getMyBuyOrders(q: { limit?: number; page?: number }) {
      this.asked += 1;
      const from = (q.page ?? 0) * cap;
      const orders = Array.from({ length: Math.max(0, Math.min(cap, total - from)) }, (_, i) =>
        order(String(from + i + 1)),
      );
      return { orders, count: withCount ? total : undefined };
    },
  });

  it("GIVEN a service that caps pages below our limit and sends a count WHEN the orders are read THEN every order is read and the list is complete", async () => {
    const api = capped(45, 20, true);
    const read = await readMyBuyOrders(api, { limit: 50, maxPages: 10 });
    expect(read.items.map((o) => o.id)).toHaveLength(45);
    expect(read.complete).toBe(true);
    // The generic walker also pages past short pages when a count says there is more.
    const seen: string[] = [];
    for await (const page of numberedPages(async (p) => {
      const r = await api.getMyBuyOrders({ limit: 50, page: p });
      return { items: r.orders, count: r.count };
    }, 50))
      seen.push(...page.map((o) => o.id));
    expect(seen).toHaveLength(45);
  });

  it("GIVEN a capped service without a count WHEN the orders are read THEN reading goes on to an empty page, AND a read cut by the page guard is not complete", async () => {
    const api = capped(45, 20, false);
    const read = await readMyBuyOrders(api, { limit: 50, maxPages: 10 });
    expect(read.items).toHaveLength(45);
    expect(read.complete).toBe(true);
    expect(api.asked).toBe(4); // 20 + 20 + 5, then the empty page that proves the end
    const cut = await readMyBuyOrders(capped(45, 20, false), { limit: 50, maxPages: 2 });
    expect(cut.complete).toBe(false);
  });
});

describe("an automatic write after a stop it did not see", () => {
  it("GIVEN a guard read by its pass WHEN it is turned off before the raise is reserved THEN the reservation is refused as stopped, AND a listing guard's pre-write check says it is off", async () => {
    const user = await linked();
    const guard = await saveGuard(db.prisma, {
      userId: user.id,
      kind: "buy_order",
      subjectId: "9001",
      itemName: "A",
      limitCents: 800,
      stepCents: 10,
      maxChangesPerDay: 10,
      priceCents: 500,
      linkGeneration: user.linkGeneration,
    });
    const raise = (key: string, unit: number) =>
      reserveOrRefuse(db.prisma, {
        userId: user.id,
        kind: "buy_order",
        idempotencyKey: key,
        subjectId: "9001",
        unitPriceCents: unit,
        totalCents: unit,
        authority: { kind: "guard", guardId: guard.id },
      });
    // Above the ceiling the user set: refused whatever the caps allow.
    await expect(raise(`g1:${seq}`, 900)).rejects.toThrow("ceiling you confirmed");
    expect(await guardStillOn(db.prisma, guard)).toBe(true);

    await stopAutomationRows(db.prisma, user.id, { shadow: false, reason: "test" });

    await expect(raise(`g2:${seq}`, 600)).rejects.toBeInstanceOf(AutomationStopped);
    expect(await guardStillOn(db.prisma, guard)).toBe(false);
    expect(await getPurchaseByKey(db.prisma, `g2:${seq}`)).toBeNull();
  });

  it("GIVEN an armed match queued for its buy WHEN the user unlinks, then links the same account again THEN the buy is refused as stopped both times, and nothing is reserved", async () => {
    const user = await linked("76561198000000077");
    const ruleId = await liveRule(user, 1_000, 3);
    const buy = (key: string) =>
      reserveOrRefuse(db.prisma, {
        userId: user.id,
        kind: "auto_buy",
        idempotencyKey: key,
        subjectId: key,
        unitPriceCents: 900,
        totalCents: 900,
        authority: { kind: "rule", ruleId },
      });
    await unlinkUser(db.prisma, user.id);
    await expect(buy(`auto:${ruleId}:1`)).rejects.toBeInstanceOf(AutomationStopped);
    await linkUser(
      db.prisma,
      standInLink(user.discordId, {
        encryptedKey: "v1:abcd1234:iv:tag:ctX",
        platformId: "76561198000000077",
      }),
    );
    await expect(buy(`auto:${ruleId}:2`)).rejects.toBeInstanceOf(AutomationStopped);
    expect(await db.prisma.purchase.count({ where: { userId: user.id } })).toBe(0);
  });

  it("GIVEN a live rule armed for 2 buys of at most $10 WHEN buys try to pass its ceiling or its $20 budget THEN each is refused, AND a new key for the same account keeps it armed", async () => {
    const user = await linked("76561198000000078");
    const ruleId = await liveRule(user, 1_000, 2);
    const buy = (n: number, cents: number) =>
      reserveOrRefuse(db.prisma, {
        userId: user.id,
        kind: "auto_buy",
        idempotencyKey: `auto:${ruleId}:${n}`,
        subjectId: String(n),
        unitPriceCents: cents,
        totalCents: cents,
        authority: { kind: "rule", ruleId },
      });
    await expect(buy(1, 1_001)).rejects.toThrow("$10.00 ceiling you confirmed");
    await buy(2, 1_000);
    // A new key for the same, active account: automation goes on (the generation holds).
    const { sameAccount } = await linkUser(
      db.prisma,
      standInLink(user.discordId, {
        encryptedKey: "v1:abcd1234:iv:tag:ctY",
        keyFingerprint: "…c3d4",
        platformId: "76561198000000078",
      }),
    );
    expect(sameAccount).toBe(true);
    await buy(3, 900);
    await expect(buy(4, 200)).rejects.toThrow("already committed $19.00 of the $20.00");
  });
});

describe("a failure that is not the marketplace's", () => {
  it("GIVEN a reserved purchase WHEN its request fails with an error that is not a market error THEN it stays counted as unknown, never released", async () => {
    const user = await linked();
    const c = await reserveOrRefuse(db.prisma, {
      userId: user.id,
      kind: "buy",
      idempotencyKey: `x:${seq}`,
      subjectId: "1",
      unitPriceCents: 100,
      totalCents: 100,
    });
    await commitmentFailed(db.prisma, c, new TypeError("a bug after the request left"));
    expect((await getPurchaseByKey(db.prisma, `x:${seq}`))?.status).toBe("unknown");

    const refused = await reserveOrRefuse(db.prisma, {
      userId: user.id,
      kind: "buy",
      idempotencyKey: `y:${seq}`,
      subjectId: "2",
      unitPriceCents: 100,
      totalCents: 100,
    });
    await commitmentFailed(
      db.prisma,
      refused,
      new MarketError({ kind: "stale_purchase", endpoint: "POST /listings/buy", status: 422 }),
    );
    expect((await getPurchaseByKey(db.prisma, `y:${seq}`))?.status).toBe("failed");
  });
});
