// Money under any interleaving: seeded random runs of manual buys, bids, buy orders and offers,
// automatic buys and guard raises (several at once), cap changes, stops, unlinks, re-links of the
// same or another account, revocations, lost answers and the reconciler's findings, on a real
// database. After every step: committed money never goes past a cap by a new reservation; no
// automatic reservation is accepted once its automation was stopped; none above its confirmed
// ceiling or budget; and every commitment still counted matches one the model holds open or
// unsettled. A failing seed is printed, so it can be replayed alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armRule } from "../../src/db/repos/autoBuys.ts";
import { stopAutomationRows } from "../../src/db/repos/automation.ts";
import { saveGuard } from "../../src/db/repos/guards.ts";
import { createRule } from "../../src/db/repos/rules.ts";
import { spentInWindow } from "../../src/db/repos/purchases.ts";
import { linkUser, markRevoked, unlinkUser, updateSettings } from "../../src/db/repos/users.ts";
import { UserFacingError } from "../../src/errors.ts";
import { createRng, type Rng } from "../../src/sandbox/rng.ts";
import {
  commitmentRefused,
  commitmentReleased,
  commitmentSpent,
  commitmentStands,
  commitmentUnknown,
  reserveOrRefuse,
  type Commitment,
  type SpendKind,
} from "../../src/spending/guard.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";

const SEEDS = 12;
const STEPS = 30;

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ poolMax: 8 });
});
afterAll(async () => {
  await db.close();
});

type Status = "open" | "unknown" | "pending";
interface Held {
  c: Commitment;
  status: Status;
  /** The automation that reserved it, if any. */
  auto?: Auto;
}
interface Auto {
  kind: "rule" | "guard";
  id: number;
  ceiling: number;
  budget: number;
  generation: number;
  on: boolean;
  /** Guards: the order whose commitment a raise replaces. */
  orderId?: string;
}
interface World {
  rng: Rng;
  userId: number;
  discordId: string;
  linked: boolean;
  platformId: string;
  generation: number;
  per: number | null;
  daily: number | null;
  autos: Auto[];
  held: Map<number, Held>;
  keys: number;
  accounts: number;
}

const allowedNow = (w: World, a: Auto) => a.on && w.linked && a.generation === w.generation;

async function link(w: World, platformId: string): Promise<void> {
  const { user, sameAccount } = await linkUser(db.prisma, {
    discordId: w.discordId,
    encryptedKey: `v1:abcd1234:iv:tag:${w.keys++}`,
    keyId: "abcd1234",
    keyFingerprint: "…a1b2",
    platformId,
    platformName: "trader",
  });
  if (!sameAccount) for (const a of w.autos) a.on = false;
  expect(sameAccount).toBe(w.linked && platformId === w.platformId);
  w.userId = user.id;
  w.linked = true;
  w.platformId = platformId;
  w.generation = user.linkGeneration;
}

/** Settles a reserved commitment as the marketplace (or a lost answer) decides. */
async function settle(w: World, c: Commitment, kind: SpendKind, auto: Auto | undefined): Promise<void> {
  const roll = w.rng.next();
  const standing = kind === "bid" || kind === "buy_order" || kind === "offer";
  if (roll < 0.2) {
    await commitmentRefused(db.prisma, c, "refused");
    return;
  }
  if (roll < 0.4) {
    await commitmentUnknown(db.prisma, c, "timeout");
    w.held.set(c.id, { c, status: "unknown", ...(auto ? { auto } : {}) });
    return;
  }
  if (standing) {
    await commitmentStands(db.prisma, c);
    w.held.set(c.id, { c, status: "open", ...(auto ? { auto } : {}) });
  } else await commitmentSpent(db.prisma, c);
}

async function reserve(
  w: World,
  kind: SpendKind,
  unit: number,
  total: number,
  auto?: Auto,
): Promise<{ ok: true; c: Commitment } | { ok: false; error: UserFacingError }> {
  const key = auto?.kind === "rule" ? `auto:${auto.id}:${w.keys++}` : `k:${w.userId}:${w.keys++}`;
  const replaces =
    auto?.kind === "guard"
      ? [...w.held.values()].find((h) => h.auto === auto && h.status === "open")?.c
      : undefined;
  try {
    const c = await reserveOrRefuse(db.prisma, {
      userId: w.userId,
      kind,
      idempotencyKey: key,
      subjectId: auto?.orderId ?? key,
      unitPriceCents: unit,
      totalCents: total,
      ...(replaces ? { replaces } : {}),
      ...(auto
        ? {
            authority:
              auto.kind === "rule" ? { kind: "rule", ruleId: auto.id } : { kind: "guard", guardId: auto.id },
          }
        : {}),
    });
    return { ok: true, c };
  } catch (error) {
    if (error instanceof UserFacingError) return { ok: false, error };
    throw error;
  }
}

/** One concurrent step: a few reservations (manual and automatic) and settlements at once. */
async function concurrentStep(w: World, log: string[]): Promise<void> {
  const before = await spentInWindow(db.prisma, w.userId);
  const allowed = new Map(w.autos.map((a) => [a, allowedNow(w, a)]));
  const n = w.rng.int(1, 4);
  const ops: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const roll = w.rng.next();
    if (roll < 0.35 || w.autos.length === 0) {
      const kind = w.rng.pick<SpendKind>(["buy", "bid", "buy_order", "offer"]);
      const unit = w.rng.int(100, 2_500);
      const total = kind === "buy_order" ? unit * w.rng.int(1, 3) : unit;
      log.push(`manual ${kind} ${total}`);
      ops.push(
        reserve(w, kind, unit, total).then(async (r) => {
          if (!r.ok) return;
          if (w.per !== null) expect(unit).toBeLessThanOrEqual(w.per);
          await settle(w, r.c, kind, undefined);
        }),
      );
    } else if (roll < 0.8) {
      const auto = w.rng.pick(w.autos);
      const unit = w.rng.int(100, Math.max(200, auto.ceiling + 300));
      log.push(`auto ${auto.kind}#${auto.id} ${unit}`);
      const kind: SpendKind = auto.kind === "rule" ? "auto_buy" : "buy_order";
      ops.push(
        reserve(w, kind, unit, unit, auto).then(async (r) => {
          if (!r.ok) return;
          // Accepted: the automation was on, on its account, within what was confirmed.
          expect(allowed.get(auto), `automatic reservation after a stop (${auto.kind} ${auto.id})`).toBe(
            true,
          );
          expect(unit).toBeLessThanOrEqual(auto.ceiling);
          if (w.per !== null) expect(unit).toBeLessThanOrEqual(w.per);
          if (auto.kind === "guard") {
            const previous = [...w.held.values()].find((h) => h.auto === auto && h.status === "open");
            if (previous) {
              await commitmentReleased(db.prisma, previous.c, "replaced");
              w.held.delete(previous.c.id);
            }
          }
          await settle(w, r.c, kind, auto);
        }),
      );
    } else {
      const held = [...w.held.values()];
      if (held.length === 0) continue;
      const h = w.rng.pick(held);
      w.held.delete(h.c.id);
      log.push(`settle ${h.c.id} (${h.status})`);
      const roll2 = w.rng.next();
      ops.push(
        (async () => {
          if (roll2 < 0.5) await commitmentReleased(db.prisma, h.c, "ended");
          else await commitmentSpent(db.prisma, h.c);
        })(),
      );
    }
  }
  await Promise.all(ops);
  const after = await spentInWindow(db.prisma, w.userId);
  if (w.daily !== null) expect(after).toBeLessThanOrEqual(Math.max(w.daily, before));
  // The rule's budget: what it committed since armed never passes what was confirmed.
  for (const a of w.autos) {
    if (a.kind !== "rule") continue;
    const rows = await db.prisma.purchase.findMany({
      where: {
        idempotencyKey: { startsWith: `auto:${a.id}:` },
        status: { in: ["pending", "open", "unknown", "succeeded"] },
      },
      select: { totalCents: true },
    });
    expect(rows.reduce((s, r) => s + Number(r.totalCents), 0)).toBeLessThanOrEqual(a.budget);
  }
  // Every commitment still counted is one the model holds open or unsettled, and no other.
  const counted = await db.prisma.purchase.findMany({
    where: { userId: w.userId, status: { in: ["pending", "open", "unknown"] } },
    select: { id: true },
  });
  expect(new Set(counted.map((r) => r.id))).toEqual(new Set(w.held.keys()));
}

/** One step that changes what is allowed: caps, automation on or off, the linked account. */
async function controlStep(w: World, log: string[]): Promise<void> {
  const roll = w.rng.next();
  if (roll < 0.2) {
    w.per = w.rng.chance(0.2) ? null : w.rng.int(500, 2_000);
    w.daily = w.rng.chance(0.2) ? null : w.rng.int(1_000, 6_000);
    log.push(`caps ${w.per} ${w.daily}`);
    await updateSettings(db.prisma, w.userId, { perPurchaseCapCents: w.per, dailyCapCents: w.daily });
  } else if (roll < 0.45) {
    if (!w.linked) return;
    const ceiling = w.rng.int(300, 1_500);
    if (w.rng.chance(0.5)) {
      const created = await createRule(
        db.prisma,
        { userId: w.userId, name: `r${w.keys++}`, filters: {} },
        { maxRulesPerUser: 1_000 },
      );
      if (!created.ok) throw new Error("rule not created");
      const maxBuys = w.rng.int(1, 4);
      await armRule(db.prisma, {
        userId: w.userId,
        ruleId: created.rule.id,
        mode: "live",
        maxBuys,
        at: new Date(Date.now() - 1_000),
        bound: {
          ceilingCents: ceiling,
          budgetCents: ceiling * maxBuys,
          filters: {},
          linkGeneration: w.generation,
        },
      });
      w.autos.push({
        kind: "rule",
        id: created.rule.id,
        ceiling,
        budget: ceiling * maxBuys,
        generation: w.generation,
        on: true,
      });
      log.push(`arm rule ${created.rule.id} ceiling ${ceiling} x${maxBuys}`);
    } else {
      const orderId = `o${w.keys++}`;
      const g = await saveGuard(db.prisma, {
        userId: w.userId,
        kind: "buy_order",
        subjectId: orderId,
        itemName: "A",
        limitCents: ceiling,
        stepCents: 10,
        maxChangesPerDay: 100,
        priceCents: 100,
        linkGeneration: w.generation,
      });
      w.autos.push({
        kind: "guard",
        id: g.id,
        ceiling,
        budget: Number.MAX_SAFE_INTEGER,
        generation: w.generation,
        on: true,
        orderId,
      });
      log.push(`guard ${g.id} ceiling ${ceiling}`);
    }
  } else if (roll < 0.6) {
    log.push("stop everything");
    await stopAutomationRows(db.prisma, w.userId, { shadow: true, reason: "test" });
    for (const a of w.autos) a.on = false;
  } else if (roll < 0.72) {
    log.push("unlink");
    await unlinkUser(db.prisma, w.userId);
    for (const a of w.autos) a.on = false;
    w.linked = false;
    w.generation += 1;
  } else if (roll < 0.84) {
    const other = w.rng.chance(0.5);
    // The world's own accounts: one marketplace account is linked to one Discord user at a time.
    const platformId = other ? `${w.discordId}p${++w.accounts}` : w.platformId;
    log.push(`link ${platformId}`);
    await link(w, platformId);
  } else {
    if (!w.linked) return;
    log.push("key refused");
    await stopAutomationRows(db.prisma, w.userId, { shadow: false, reason: "refused" });
    await markRevoked(db.prisma, w.userId);
    for (const a of w.autos) a.on = false;
    w.linked = false;
  }
}

describe("spend caps and automation under random interleavings", () => {
  it(`GIVEN ${SEEDS} seeded runs of ${STEPS} mixed steps WHEN manual and automatic actions, caps, stops and links interleave THEN after every step the caps hold, nothing automatic follows a stop or passes what was confirmed, and every counted commitment is a live one`, async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const log: string[] = [];
      const discordId = `${920000000000000000n + BigInt(seed)}`;
      const w: World = {
        rng: createRng(seed * 7919),
        userId: 0,
        discordId,
        linked: false,
        platformId: `${discordId}p0`,
        generation: 0,
        per: 1_500,
        daily: 4_000,
        autos: [],
        held: new Map(),
        keys: 0,
        accounts: 0,
      };
      try {
        await link(w, w.platformId);
        await updateSettings(db.prisma, w.userId, { perPurchaseCapCents: w.per, dailyCapCents: w.daily });
        for (let step = 0; step < STEPS; step++) {
          if (w.rng.chance(0.3)) await controlStep(w, log);
          else await concurrentStep(w, log);
        }
      } catch (error) {
        throw new Error(`seed ${seed} failed after: ${log.slice(-12).join(" | ")}\n${String(error)}`, {
          cause: error,
        });
      }
    }
  });
});
