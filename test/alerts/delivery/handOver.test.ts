// When an alert write may claim its rows for this process's delivery worker (ADR 038): only while
// the worker has nothing else to do, so rows never jump a pass, a backlog or ADR 018's order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliveryPart, type DeliveryPart } from "../../../src/outbox/part.ts";
import type { AlertSender, SendRequest } from "../../../src/outbox/sender.ts";
import { writeAlertsFlushedLater } from "../../../src/outbox/store.ts";
import { createRule } from "../../../src/db/repos/rules.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { waitUntil } from "../engine/world.ts";

const logger = createLogger({ level: "silent" });
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

/** Discord's side is not under test here: sends wait at a gate the test opens, then succeed. */
function gatedSender() {
  const sent: SendRequest[] = [];
  const at = { gate: 0 };
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const sender: AlertSender = {
    async send(request) {
      at.gate += 1;
      await gate;
      sent.push(request);
      return { kind: "sent", messageId: String(900 + sent.length) };
    },
  };
  return { sender, sent, at, open: () => open() };
}

async function listingAlertFor(discordId: string, listingId: string) {
  const user = await ensureUser(db.prisma, discordId);
  const rule = await createRule(
    db.prisma,
    { userId: user.id, name: "r", filters: {} },
    { maxRulesPerUser: 5 },
  );
  if (!rule.ok) throw new Error("expected a rule");
  return {
    userId: user.id,
    ruleId: rule.rule.id,
    kind: "listing" as const,
    subjectId: listingId,
    version: "1",
    dedupeKey: `listing:${rule.rule.id}:${listingId}:1`,
    destination: "dm" as const,
    alert: { kind: "feed_gap" as const, reason: "too_slow" as const, ruleCount: 1 },
  };
}

/** Delivery's part for `workerId`, sending through a gated sender; its own timer never fires in a test. */
function deliveryPart(workerId: string) {
  const discord = gatedSender();
  const part: DeliveryPart = createDeliveryPart(
    { prisma: db.prisma, sender: discord.sender, logger, deliveryIntervalMs: 600_000, workerId },
    { log: logger, now: () => new Date(), leading: () => true },
  );
  return { discord, part };
}

describe("delivery hand-over", () => {
  it("GIVEN delivery's part WHEN it is stopped, busy, kicked or still holding handed rows THEN an insert may not claim for it; once idle again it may", async () => {
    const { discord, part } = deliveryPart("w-hand");
    try {
      expect(part.handOver.claim()).toBeUndefined();
      part.start();
      await waitUntil(() => part.stats().runs >= 1, 5_000, "the first pass");
      // Nothing was due at the first claim: the worker is idle.
      const claim = part.handOver.claim();
      expect(claim).toMatchObject({ workerId: "w-hand", limit: 50 });

      const alert = await listingAlertFor("720000000000000001", "L1");
      const { claimed } = await writeAlertsFlushedLater(db.prisma, [alert], claim);
      expect(claimed).toHaveLength(1);
      part.handOver.take(claimed, claim as NonNullable<typeof claim>);
      // Handed rows not sent yet, then a pass sending them (held at Discord's gate): no claim.
      expect(part.handOver.claim()).toBeUndefined();
      await waitUntil(() => discord.at.gate === 1, 5_000, "the handed row's send to start");
      expect(part.handOver.claim()).toBeUndefined();

      discord.open();
      await waitUntil(() => part.stats().handed === 1 && part.stats().sent === 1, 5_000, "handed row sent");
      // The pass after handed rows claims what else came due; once it found nothing, idle again.
      await waitUntil(() => part.handOver.claim() !== undefined, 5_000, "idle again");
      expect(discord.sent).toHaveLength(1);

      part.kick();
      expect(part.handOver.claim()).toBeUndefined();
    } finally {
      await part.stop();
    }
    expect(part.handOver.claim()).toBeUndefined();
  });

  it("GIVEN one page's alerts for twelve watchers handed over WHEN delivery sends them THEN all twelve are on their way before Discord answers any", async () => {
    const { discord, part } = deliveryPart("w-wide");
    try {
      part.start();
      await waitUntil(() => part.handOver.claim() !== undefined, 5_000, "the worker to be idle");
      const alerts = [];
      for (let i = 0; i < 12; i++) alerts.push(await listingAlertFor(`72000000000000011${i}`, `W${i}`));
      const claim = part.handOver.claim() as NonNullable<ReturnType<DeliveryPart["handOver"]["claim"]>>;
      const { claimed } = await writeAlertsFlushedLater(db.prisma, alerts, claim);
      part.handOver.take(claimed, claim);

      // Twelve watchers, twelve lanes: none waits for another's answer and bookkeeping.
      await waitUntil(() => discord.at.gate === 12, 5_000, "every send to start");
      expect(discord.sent).toHaveLength(0);
      discord.open();
      await waitUntil(() => part.stats().sent === 12, 5_000, "all sent");
    } finally {
      discord.open();
      await part.stop();
    }
  });
});
