// Crash safety (item 4): the bot process (src/main.ts under tsx, against the Discord double, the
// sandbox and a test database, all run here) is killed with SIGKILL 20 times at seeded random points
// of its poll and delivery cycle and started again each time, while listings matching two users'
// rules keep appearing. At the end every expected alert has reached Discord exactly once: counted
// at the double, per user and listing. Set CRASH_SEED to replay another sequence of kill points.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble } from "../support/discord.ts";
import { spawnBot, type BotProcess, type ProcessLogLine } from "../ops/support.ts";
import { reliabilityTally } from "../reliability/report.ts";
import { answer, seededRandom, textOf, until } from "../reliability/support.ts";
import {
  alertDms,
  countBySubject,
  deliveryCountsFirst,
  recordDelivery,
  tallyDelivery,
  uniqueItem,
} from "../reliability/support-faults.ts";

const tally = deliveryCountsFirst(
  reliabilityTally("crash", "Crash safety: SIGKILL mid-cycle (item 4)", import.meta.url),
);

const SEED = Number(process.env.CRASH_SEED ?? 20_261_121);
const KILLS = 20;
const POLL_MS = 300;
/** One listing every this often, three in four matching a rule, for as long as the kills go on. */
const LISTING_EVERY_MS = 400;
/** A tsx child takes 1–2 s to start on an idle machine; far more on a loaded one. */
const START_DEADLINE_MS = 120_000;
/** Longest wait for a kill point's log line before killing anyway. */
const EVENT_DEADLINE_MS = 20_000;
/** Rows a killed process claimed come back after the outbox lease (60 s), then go out. */
const DRAIN_DEADLINE_MS = 180_000;
const BOB_MAX_CENTS = 2_000;

type KillPoint = "starting up" | "running" | "alerts just queued" | "alert just sent";

const rand = seededRandom(SEED);
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const KILL_POINTS: readonly KillPoint[] = ["starting up", "running", "alerts just queued", "alert just sent"];

/** Each kind of kill point equally often, in a seeded random order (the delays within are random too). */
function killPlan(): KillPoint[] {
  const plan = Array.from({ length: KILLS }, (_, i) => KILL_POINTS[i % KILL_POINTS.length] as KillPoint);
  for (let i = plan.length - 1; i > 0; i--) {
    const j = between(0, i);
    [plan[i], plan[j]] = [plan[j] as KillPoint, plan[i] as KillPoint];
  }
  return plan;
}

let double: DiscordDouble;
let sandbox: Sandbox;
let db: TestDatabase;
let workDir: string;
let env: Record<string, string>;
const children: BotProcess[] = [];

beforeAll(async () => {
  double = await startDiscordDouble();
  sandbox = await startSandbox({ rateLimit: false });
  db = await freshDatabase();
  workDir = await mkdtemp(path.join(tmpdir(), "bot-crash-"));
  env = {
    DISCORD_TOKEN: "crash-test-token",
    DISCORD_API_URL: double.apiUrl,
    MARKET_BASE_URL: sandbox.baseUrl,
    MARKET_API_KEY: sandbox.operatorKey,
    DATABASE_URL: db.url,
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    DATA_DIR: workDir,
    HTTP_PORT: "0",
    LOG_LEVEL: "info",
    NODE_ENV: "test",
    POLL_INTERVAL_MS: String(POLL_MS),
    BID_POLL_INTERVAL_MS: "60000",
    TRADE_POLL_INTERVAL_MS: "60000",
  };
});

afterAll(async () => {
  for (const child of children) await child.kill();
  await double?.close();
  await sandbox?.close();
  await db?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function start(): BotProcess {
  const child = spawnBot(env, workDir);
  children.push(child);
  return child;
}

const engineStarted = (l: ProcessLogLine) => l.msg === "alert engine started";

/** Waits for the kill point (or gives up on it after a while) and kills the process with SIGKILL. */
async function killAt(child: BotProcess, point: KillPoint): Promise<{ point: KillPoint; reached: boolean }> {
  const waitFor = async (match: (l: ProcessLogLine) => boolean, what: string): Promise<boolean> =>
    child.waitForLog(match, EVENT_DEADLINE_MS, what).then(
      () => true,
      () => false,
    );
  let reached = true;
  switch (point) {
    case "starting up":
      await sleep(between(0, 2_500));
      break;
    case "running":
      reached = await waitFor(engineStarted, "the alert engine to start");
      await sleep(between(0, 2_000));
      break;
    case "alerts just queued":
      reached = await waitFor((l) => l.msg === "listing alerts queued", "alerts to be queued");
      await sleep(between(0, 40));
      break;
    case "alert just sent":
      reached = await waitFor((l) => l.msg === "alert sent", "an alert to be sent");
      await sleep(between(0, 40));
      break;
  }
  const stillRunning = child.child.exitCode === null && child.child.signalCode === null;
  if (!stillRunning)
    throw new Error(`the bot exited on its own before the kill:\n${child.output().slice(-4000)}`);
  child.child.kill("SIGKILL");
  const exit = await child.exited;
  expect(exit.signal).toBe("SIGKILL");
  return { point, reached };
}

describe("the bot process killed with SIGKILL mid-cycle", () => {
  it(
    `GIVEN listings matching two users' rules keep appearing WHEN the bot is killed ${KILLS} times at random points and restarted THEN every expected alert is delivered exactly once`,
    async () => {
      const alice = double.user("alice");
      const bob = double.user("bob");
      const item = uniqueItem("crash");

      // The first process takes the rules (through Discord) and sets the feed's mark.
      let child = start();
      await child.waitForLog(engineStarted, START_DEADLINE_MS, "the first bot to start");
      expect(textOf(await answer(double.slash(alice, "watch add", { name: "crash all", item })))).toContain(
        "Watching",
      );
      expect(
        textOf(await answer(double.slash(bob, "watch add", { name: "crash cheap", item, max_price: 20 }))),
      ).toContain("Watching");
      await child.waitForLog(
        (l) => l.msg.startsWith("feed started"),
        START_DEADLINE_MS,
        "the feed to set its mark",
      );

      // Listings keep appearing from now on, whether a bot runs or not.
      const forAlice: string[] = [];
      const forBob: string[] = [];
      let unrelated = 0;
      let n = 0;
      const generator = setInterval(() => {
        n += 1;
        if (n % 4 === 0) {
          sandbox.control.createListing({ market_hash_name: uniqueItem("other"), price: 1_000 });
          unrelated += 1;
          return;
        }
        const price = n % 2 === 0 ? 1_500 : 3_000;
        const { id } = sandbox.control.createListing({ market_hash_name: item, price });
        forAlice.push(id);
        if (price <= BOB_MAX_CENTS) forBob.push(id);
      }, LISTING_EVERY_MS);

      const kills: { point: KillPoint; reached: boolean }[] = [];
      try {
        for (const point of killPlan()) {
          kills.push(await killAt(child, point));
          child = start();
        }
      } finally {
        clearInterval(generator);
      }

      // The last process runs on: everything due must arrive, including rows whose claim a
      // killed process held until its lease ran out.
      const dms = () =>
        new Map([
          ...[...countBySubject(alertDms(double, alice.id), "Listing", forAlice)].map(
            ([id, c]) => [`alice:${id}`, c] as const,
          ),
          ...[...countBySubject(alertDms(double, bob.id), "Listing", forBob)].map(
            ([id, c]) => [`bob:${id}`, c] as const,
          ),
        ]);
      await child.waitForLog(engineStarted, START_DEADLINE_MS, "the last bot to start");
      await until(
        async () =>
          [...dms().values()].every((c) => c >= 1) &&
          (await db.prisma.outbox.count({ where: { status: { in: ["pending", "sending"] } } })) === 0,
        "every expected alert to be delivered and recorded",
        DRAIN_DEADLINE_MS,
      );
      // A few more feed and delivery passes (POLL_MS apart): a late duplicate would show now.
      const quietFrom = child.logs.length;
      await sleep(10 * POLL_MS);
      child.child.kill("SIGTERM");
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.logs.slice(quietFrom).filter((l) => l.msg === "alert sent")).toEqual([]);

      const delivery = tallyDelivery(dms());
      const unrelatedAlerts =
        alertDms(double, alice.id).length +
        alertDms(double, bob.id).length -
        [...dms().values()].reduce((a, b) => a + b, 0);
      // Re-sends after a crash carry the row's nonce: Discord answers them with the first message.
      const nonces = double.requests
        .filter((r) => r.method === "POST" && /^\/channels\/\d+\/messages$/.test(r.path) && r.status === 200)
        .map((r) => (r.body as { nonce?: unknown } | undefined)?.nonce)
        .filter((nonce): nonce is string => typeof nonce === "string");
      const resends = nonces.length - new Set(nonces).size;

      tally.add("kills (SIGKILL)", kills.length);
      for (const point of KILL_POINTS) {
        tally.add(`kills: ${point}`, kills.filter((k) => k.point === point).length);
      }
      tally.add("kill points not reached in time (killed anyway)", kills.filter((k) => !k.reached).length);
      tally.add("restarts", KILLS);
      tally.add("listings created", forAlice.length + unrelated);
      tally.add("re-sends answered by nonce (no new message)", resends);
      recordDelivery(tally, delivery);
      tally.note(`seed ${SEED}; replay with CRASH_SEED=${SEED} npm run test:soak -- test/soak/crash.test.ts`);

      expect(kills).toHaveLength(KILLS);
      expect(delivery.expected).toBeGreaterThan(2 * KILLS);
      expect(delivery.lost).toEqual([]);
      expect(delivery.duplicates).toEqual({});
      expect(unrelatedAlerts).toBe(0);
      expect(await db.prisma.outbox.count({ where: { status: { not: "sent" } } })).toBe(0);
    },
    15 * 60_000,
  );
});
