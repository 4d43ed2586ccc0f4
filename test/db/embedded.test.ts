import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded.ts";
import { createPrismaClient, openDatabase } from "../../src/db/index.ts";
import { createLogger } from "../../src/log.ts";

const logger = createLogger({ level: "silent" });
const FIXTURE = path.resolve(import.meta.dirname, "fixtures/openEmbedded.ts");
const isRoot = process.getuid?.() === 0;

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => undefined);
});

async function tempDir(owner?: { uid: number; gid: number }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "embedded-test-"));
  await chmod(dir, 0o711);
  if (owner) await chown(dir, owner.uid, owner.gid);
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function scalar(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Object.values((await client.query(sql)).rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

interface ChildReport {
  embedded: boolean;
  uid: number;
  dbUser: string;
  ms: number;
}

/** Runs the fixture in a child process; resolves with its report once it has opened the database. */
function runChild(dataDir: string, mode: "hold" | "once", as?: { uid: number; gid: number }) {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, dataDir, mode], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"],
    ...(as ?? {}),
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const ready = new Promise<ChildReport>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /READY (.*)\n/.exec(out);
      if (m?.[1]) resolve(JSON.parse(m[1]) as ChildReport);
    });
    child.on("exit", (code) => reject(new Error(`child exited (${code}) before ready: ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, ready, exited };
}

describe("embedded Postgres", () => {
  // One data folder for the tests that can share it (they run in order, each leaves the server
  // stopped): a cold initdb per test would dominate the suite's time.
  let shared: string;
  beforeAll(async () => {
    shared = await tempDir();
  });

  it("GIVEN no DATABASE_URL WHEN the database is opened THEN an embedded server in <dataDir>/postgres is migrated, and close() stops it", async () => {
    const db = await openDatabase({
      config: { DATABASE_URL: undefined, dataDir: shared },
      logger,
      embedded: { ephemeral: true },
    });
    cleanup.push(() => db.close());
    expect(db.embedded).toBe(true);
    expect(existsSync(path.join(shared, "postgres", "PG_VERSION"))).toBe(true);
    await db.prisma.user.create({ data: { discordId: "1001" } });
    expect(await db.prisma.user.count()).toBe(1);
    await db.close();
    expect(existsSync(path.join(shared, "postgres", "postmaster.pid"))).toBe(false);

    // Second start on existing data: fast, same data, same recorded port.
    const started = Date.now();
    const again = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
    cleanup.push(() => again.stop());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(again.reused).toBe(false);
    expect(await scalar(again.url, "SELECT count(*)::int FROM users")).toBe(1);
    await again.stop();
  });

  it.runIf(isRoot)(
    "GIVEN root WHEN the embedded server starts THEN it runs as user postgres, not root",
    async () => {
      const server = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
      cleanup.push(() => server.stop());
      const pid = Number(
        readFileSync(path.join(shared, "postgres", "postmaster.pid"), "utf8").split("\n")[0],
      );
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
      expect(uid).toBe(Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()));
      await server.stop();
    },
  );

  it("GIVEN a process holding the embedded server is SIGKILLed WHEN the next process starts THEN it reuses the running server, adopts it and stops it on close", async () => {
    const holder = runChild(shared, "hold");
    cleanup.push(async () => holder.child.kill("SIGKILL"));
    await holder.ready;
    holder.child.kill("SIGKILL");
    await holder.exited;

    const pidFile = path.join(shared, "postgres", "postmaster.pid");
    expect(existsSync(pidFile)).toBe(true); // the server outlived its parent

    const next = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
    cleanup.push(() => next.stop());
    expect(next.reused).toBe(true);
    expect(await scalar(next.url, "SELECT count(*)::int FROM users")).toBe(1);
    await next.stop();
    expect(existsSync(pidFile)).toBe(false);
  });

  it("GIVEN a stale postmaster.pid whose process is gone WHEN starting THEN the file is removed and the server starts", async () => {
    const pidFile = path.join(shared, "postgres", "postmaster.pid");
    // A pid that cannot be running (beyond pid_max), in the format the server writes.
    await writeFile(
      pidFile,
      `99999999\n${path.join(shared, "postgres")}\n0\n5432\n\n127.0.0.1\n0 0\nready   \n`,
    );
    const server = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
    cleanup.push(() => server.stop());
    expect(server.reused).toBe(false);
    expect(await scalar(server.url, "SELECT 1")).toBe(1);
    await server.stop();
  });

  it("GIVEN the server restarts under a live pool WHEN queries run during and after THEN they fail while it is down and work again without a new client", async () => {
    let server: EmbeddedPostgres = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
    cleanup.push(() => server.stop());
    const { prisma, pool } = createPrismaClient(server.url, logger, 4);
    cleanup.push(async () => {
      await prisma.$disconnect();
      await pool.end();
    });
    // Several idle connections in the pool when the server goes away.
    await prisma.$queryRaw`SELECT 1`;
    const held = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    for (const c of held) c.release();
    expect(pool.idleCount).toBe(3);

    await server.stop();
    await expect(prisma.$queryRaw`SELECT 1`).rejects.toThrow();

    server = await startEmbeddedPostgres({ baseDir: shared, logger, ephemeral: true });
    const rows = await prisma.$queryRaw<Array<{ ok: number }>>`SELECT 1::int AS ok`;
    expect(rows).toEqual([{ ok: 1 }]);
    await server.stop();
  });

  it("GIVEN a normal (non-root) user WHEN the embedded database is opened THEN it runs as that user and stops on close", async () => {
    // As root, prove the normal-user path in a child running as 'nobody'; otherwise we are one.
    const as = isRoot ? { uid: 65534, gid: 65534 } : undefined;
    const dataDir = await tempDir(as);
    const first = runChild(dataDir, "once", as);
    const report = await first.ready;
    expect(await first.exited).toBe(0);
    expect(report.embedded).toBe(true);
    if (as) expect(report.uid).toBe(as.uid);
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });
});
