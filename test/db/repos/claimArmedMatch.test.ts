// An armed match's claim and its purchase's reservation in one statement (ADR 040): reserved only
// when the filters checked are the confirmed ones and the account may buy, under the same caps
// as any reservation; otherwise claimed alone, nothing reserved, and what the caller needs to
// decide returned.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armRule, claimArmedMatch, type ClaimInput } from "../../../src/db/repos/autoBuys.ts";
import { createRule } from "../../../src/db/repos/rules.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { reservationOf } from "../../../src/spending/guard.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const FILTERS = { item: "Claim Test | Target (Pristine)", max_price: 50_000 };
let seq = 0;

/** A linked trader with a daily cap and one rule armed live on FILTERS (ceiling $500, 3 buys). */
async function armedTrader(opts: { dailyCapCents?: bigint | null; maxBuys?: number } = {}) {
  const discordId = `${720000000000000000n + BigInt(++seq)}`;
  const user = await ensureUser(db.prisma, discordId);
  await db.prisma.user.update({
    where: { id: user.id },
    data: {
      encryptedKey: "sealed",
      platformId: `7656${seq}`,
      status: "active",
      perPurchaseCapCents: null,
      dailyCapCents: opts.dailyCapCents === undefined ? 1_000_000n : opts.dailyCapCents,
    },
  });
  const created = await createRule(
    db.prisma,
    { userId: user.id, name: `r${seq}`, filters: FILTERS },
    { maxRulesPerUser: 5 },
  );
  if (!created.ok) throw new Error("expected a rule");
  const ruleId = created.rule.id;
  const maxBuys = opts.maxBuys ?? 3;
  await armRule(db.prisma, {
    userId: user.id,
    ruleId,
    mode: "live",
    maxBuys,
    at: new Date(),
    bound: { ceilingCents: 50_000, budgetCents: 50_000 * maxBuys, filters: FILTERS, linkGeneration: 0 },
  });
  return { userId: user.id, ruleId, platformId: `7656${seq}` };
}

/** What the auto-buyer asks the claim to reserve: the rule's auto-buy of the listing at its price. */
const autoBuy = (t: { userId: number; ruleId: number }, listingId: string, priceCents = 1_000) =>
  reservationOf({
    userId: t.userId,
    kind: "auto_buy",
    idempotencyKey: `auto:${t.ruleId}:${listingId}`,
    subjectId: listingId,
    unitPriceCents: priceCents,
    totalCents: priceCents,
    authority: { kind: "rule", ruleId: t.ruleId },
  });

let listingSeq = 0;
function match(t: { userId: number; ruleId: number }, extra: Partial<ClaimInput> = {}): ClaimInput {
  const listingId = `${880000000000000 + ++listingSeq}`;
  return {
    userId: t.userId,
    ruleId: t.ruleId,
    listingId,
    mode: "live",
    itemName: FILTERS.item,
    priceCents: 1_000,
    referenceCents: undefined,
    exitCents: undefined,
    seenAt: new Date(),
    reserve: { request: autoBuy(t, listingId), filters: FILTERS, sellerPlatformId: "1234" },
    ...extra,
  };
}

const pending = (userId: number) => db.prisma.purchase.findMany({ where: { userId, status: "pending" } });
const buysTaken = async (ruleId: number) =>
  (await db.prisma.watchRule.findUniqueOrThrow({ where: { id: ruleId } })).armBuys;

describe("an armed match claimed and reserved in one statement", () => {
  it("GIVEN a live rule armed on the filters checked WHEN its match is claimed THEN the statement takes a buy and reserves the purchase at the listed price, AND the same match again is only 'seen'", async () => {
    const t = await armedTrader();
    const m = match(t);
    const claim = await claimArmedMatch(db.prisma, m);

    expect(claim).toMatchObject({
      ok: true,
      buyNumber: 1,
      maxBuys: 3,
      owner: { id: t.userId, status: "active" },
    });
    if (!claim.ok) throw new Error("claimed");
    expect(claim.reserved).toMatchObject({
      ok: true,
      purchase: { kind: "auto_buy", idempotencyKey: `auto:${t.ruleId}:${m.listingId}`, totalCents: 1_000 },
    });
    const rows = await pending(t.userId);
    expect(rows.map((r) => [r.idempotencyKey, r.listingIds, Number(r.totalCents)])).toEqual([
      [`auto:${t.ruleId}:${m.listingId}`, [m.listingId], 1_000],
    ]);
    expect(await claimArmedMatch(db.prisma, m)).toEqual({ ok: false, reason: "seen" });
    expect(await buysTaken(t.ruleId)).toBe(1);
    expect(await pending(t.userId)).toHaveLength(1);
  });

  it("GIVEN filters other than the confirmed ones (the rule edited since), the owner's own listing, or no daily cap WHEN the match is claimed THEN it is claimed with nothing reserved, and the rule and owner come back for the caller to decide", async () => {
    const edited = await armedTrader();
    const m0 = match(edited);
    const other = await claimArmedMatch(
      db.prisma,
      match(edited, {
        listingId: m0.listingId,
        reserve: {
          request: autoBuy(edited, m0.listingId),
          filters: { ...FILTERS, max_price: 90_000 },
          sellerPlatformId: null,
        },
      }),
    );
    expect(other).toMatchObject({ ok: true, reserved: undefined, rule: { armFilters: FILTERS } });

    const own = await armedTrader();
    const m = match(own);
    const mine = await claimArmedMatch(db.prisma, {
      ...m,
      reserve: {
        request: autoBuy(own, m.listingId),
        filters: FILTERS,
        sellerPlatformId: own.platformId,
      },
    });
    expect(mine).toMatchObject({ ok: true, reserved: undefined, owner: { platformId: own.platformId } });

    const uncapped = await armedTrader({ dailyCapCents: null });
    expect(await claimArmedMatch(db.prisma, match(uncapped))).toMatchObject({
      ok: true,
      reserved: undefined,
      owner: { dailyCapCents: null },
    });

    for (const t of [edited, own, uncapped]) {
      expect(await pending(t.userId)).toEqual([]);
      expect(await buysTaken(t.ruleId)).toBe(1);
    }
  });

  it("GIVEN a daily cap with room for one purchase WHEN two of the owner's matches are claimed at once THEN one is reserved and the other refused by the cap, with no deadlock, AND a disarmed rule claims nothing", async () => {
    const t = await armedTrader({ dailyCapCents: 1_500n });
    const [a, b] = await Promise.all([
      claimArmedMatch(db.prisma, match(t)),
      claimArmedMatch(db.prisma, match(t)),
    ]);
    const reserved = [a, b].map((c) => (c.ok ? c.reserved : undefined));
    expect(reserved.filter((r) => r?.ok === true)).toHaveLength(1);
    expect(reserved.filter((r) => r?.ok === false && r.reason === "daily_cap")).toHaveLength(1);
    expect(await pending(t.userId)).toHaveLength(1);

    await db.prisma.watchRule.update({ where: { id: t.ruleId }, data: { armMode: null } });
    expect(await claimArmedMatch(db.prisma, match(t))).toEqual({ ok: false, reason: "not_armed" });
    expect(await db.prisma.autoBuy.count({ where: { ruleId: t.ruleId } })).toBe(2);
  });

  it("GIVEN a shadow rule WHEN its match is claimed THEN it takes a buy and nothing is reserved, whatever is asked", async () => {
    const t = await armedTrader();
    await armRule(db.prisma, {
      userId: t.userId,
      ruleId: t.ruleId,
      mode: "shadow",
      maxBuys: 2,
      at: new Date(),
    });
    const claim = await claimArmedMatch(db.prisma, match(t, { mode: "shadow" }));
    expect(claim).toMatchObject({ ok: true, buyNumber: 1, maxBuys: 2, reserved: undefined });
    expect(await pending(t.userId)).toEqual([]);
  });
});
