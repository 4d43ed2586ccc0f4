// The Docker image without Docker: scripts/docker-build-check.mjs replays the Dockerfile's build, then the
// assembled runtime folder's `node dist/src/main.js` runs the real bot on an empty database until SIGTERM.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble } from "../support/discord.ts";
import { eventually, health, REPO_ROOT, spawnNode, type BotProcess } from "../ops/support.ts";

interface Summary {
  readonly ok: boolean;
  readonly failures: readonly string[];
  readonly app?: string;
  /** node's own flags in CMD, before the entry. */
  readonly nodeFlags?: readonly string[];
  readonly entry?: string;
}

function runBuildCheck(out: string): Promise<{ code: number | null; summary: Summary; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/docker-build-check.mjs", "--out", out], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let log = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (log += c));
    child.on("error", reject);
    child.on("exit", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? "{}";
      try {
        resolve({ code, summary: JSON.parse(last) as Summary, log });
      } catch {
        reject(new Error(`no JSON summary from the build check:\n${stdout}\n${log.slice(-4000)}`));
      }
    });
  });
}

describe("the Docker image, replayed without Docker", () => {
  let out: string;
  let summary: Summary;
  let double: DiscordDouble;
  let sandbox: Sandbox;
  let db: EmptyDatabase;
  let bot: BotProcess | undefined;

  beforeAll(async () => {
    out = await mkdtemp(path.join(tmpdir(), "docker-soak-"));
    const result = await runBuildCheck(out);
    summary = result.summary;
    if (result.code !== 0) process.stderr.write(result.log.slice(-8000));
  });

  afterAll(async () => {
    await bot?.kill();
    await double?.close();
    await sandbox?.close();
    await db?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("GIVEN the Dockerfile WHEN its build stage runs (npm ci, build, prune) THEN every runtime check passes", () => {
    expect(summary.failures).toEqual([]);
    expect(summary.ok).toBe(true);
    expect(summary.entry).toBe("dist/src/main.js");
  });

  it("GIVEN the runtime folder WHEN node runs its CMD against an empty database THEN it migrates, connects, serves /healthz and stops on SIGTERM with exit 0", async () => {
    expect(summary.app).toBeDefined();
    double = await startDiscordDouble();
    sandbox = await startSandbox({ rateLimit: false });
    db = await emptyDatabase();
    const dataDir = path.join(out, "data");
    bot = spawnNode(
      [...(summary.nodeFlags ?? []), summary.entry ?? ""],
      {
        NODE_ENV: "production",
        DISCORD_TOKEN: "image-test-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        DATA_DIR: dataDir,
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: "0",
        LOG_LEVEL: "info",
      },
      summary.app ?? "",
    );
    const running = await bot.waitForLog(
      (l) => typeof l.healthUrl === "string",
      60_000,
      "the compiled bot to start",
    );
    expect(bot.logs.some((l) => l.msg === "migration applied")).toBe(true);
    const baseUrl = String(running.healthUrl).replace(/\/healthz$/, "");
    await eventually(async () => (await health(baseUrl)).status === 200, 15_000, "/healthz 200");
    expect(double.registeredCommands().map((c) => c.name)).toContain("help");

    bot.child.kill("SIGTERM");
    const exit = await bot.exited;
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
