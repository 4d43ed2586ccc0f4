// The production image on a real Docker engine (`npm run test:docker`): built from the Dockerfile,
// started with .env.example's values against a Postgres server, the local Discord double and the
// sandbox; healthy, registers commands, answers a slash command, draws a chart with text, delivers
// an alert, and stops gracefully. Reports build time, image size and start-to-healthy time.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createCanvas, loadImage } from "@napi-rs/canvas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";
import { startDiscordDouble, textOf, userAnswer, type DiscordDouble } from "../support/discord.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const IMAGE = "market-alerts-bot:test";
const NAME = `market-alerts-bot-test-${process.pid}`;

let double: DiscordDouble;
let sandbox: Sandbox;
let db: EmptyDatabase;
const timings: Record<string, number | string> = {};

async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run("docker", args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${await logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const logs = () => docker("logs", "--tail", "60", NAME).catch(() => "(no container logs)");

beforeAll(async () => {
  await docker("info", "--format", "{{.ServerVersion}}").catch(() => {
    throw new Error(
      "no Docker engine answers: `npm run test:docker` needs one (see README, Running with Docker)",
    );
  });
  const started = Date.now();
  await run("docker", ["build", "-q", "-t", IMAGE, "."], {
    cwd: ROOT,
    env: { ...process.env, DOCKER_BUILDKIT: "0" },
    maxBuffer: 64 * 1024 * 1024,
  });
  timings["build seconds"] = Math.round((Date.now() - started) / 1000);
  timings["image MB"] = Math.round(Number(await docker("image", "inspect", "-f", "{{.Size}}", IMAGE)) / 1e6);
  double = await startDiscordDouble();
  sandbox = await startSandbox({ rateLimit: false });
  db = await emptyDatabase();
}, 10 * 60_000);

afterAll(async () => {
  await docker("rm", "-f", NAME).catch(() => undefined);
  await double?.close();
  await sandbox?.close();
  await db?.close();
  console.log(`docker image: ${JSON.stringify(timings)}`);
});

describe("the production image on a real engine", () => {
  it(
    "GIVEN .env.example's values and a token WHEN the image runs THEN it is healthy, registers commands, answers, draws a chart with text, alerts, and stops cleanly",
    async () => {
      const port = await freePort();
      const startedAt = Date.now();
      await docker(
        "run",
        "-d",
        "--name",
        NAME,
        "--network",
        "host",
        "--init",
        "--env-file",
        ".env.example",
        "-e",
        "DISCORD_TOKEN=image-test-token",
        "-e",
        `DISCORD_API_URL=${double.apiUrl}`,
        "-e",
        `DATABASE_URL=${db.url}`,
        "-e",
        `ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`,
        "-e",
        `MARKET_BASE_URL=${sandbox.baseUrl}`,
        "-e",
        `MARKET_API_KEY=${sandbox.operatorKey}`,
        "-e",
        `HTTP_PORT=${port}`,
        "-e",
        "POLL_INTERVAL_MS=500",
        IMAGE,
      );

      // HEALTHCHECK (docker's view) and /healthz (ours).
      await until(
        async () =>
          (await docker("inspect", "-f", "{{.State.Health.Status}}", NAME)) === "healthy" ? true : undefined,
        60_000,
        "the container to be healthy",
      );
      timings["start to healthy seconds"] = Math.round((Date.now() - startedAt) / 1000);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(double.registeredCommands().map((c) => c.name)).toEqual(
        expect.arrayContaining(["help", "watch", "history"]),
      );

      const alice = double.user("alice");
      const help = await userAnswer(double.slash(alice, "help"), 15_000);
      expect(textOf(help)).toContain("/watch");

      // A chart drawn inside the image has its title: the font ships with the image.
      const name = sandbox.control.createListing({ price: 900 }).item.market_hash_name;
      const chart = await userAnswer(double.slash(alice, "history", { item: name }), 20_000);
      const attachment = chart.attachments[0];
      expect(attachment).toBeDefined();
      const png = attachment?.data ?? Buffer.alloc(0);
      // Kept for a look: the chart as the image draws it.
      await writeFile(path.join(os.tmpdir(), "chart-in-image.png"), png);
      const image = await loadImage(png);
      const canvas = createCanvas(image.width, image.height);
      canvas.getContext("2d").drawImage(image, 0, 0);
      const band = canvas.getContext("2d").getImageData(0, 0, image.width, 45).data;
      let bright = 0;
      for (let i = 0; i < band.length; i += 4) {
        if (0.299 * (band[i] ?? 0) + 0.587 * (band[i + 1] ?? 0) + 0.114 * (band[i + 2] ?? 0) > 140)
          bright += 1;
      }
      expect(bright, "the chart's title band holds text").toBeGreaterThan(300);

      // An alert, end to end.
      const item = `Docker Blade | Check ${randomBytes(3).toString("hex")} (Pristine)`;
      const added = await userAnswer(double.slash(alice, "watch add", { name: "docker", item }), 15_000);
      expect(textOf(added)).toContain("Watching");
      const listing = sandbox.control.createListing({ market_hash_name: item, price: 1_234 });
      await until(
        async () =>
          double.dmsTo(alice.id).some((m) => textOf(m).includes(`Listing ${listing.id}`)) ? true : undefined,
        30_000,
        "the alert DM",
      );

      // docker stop: SIGTERM, the bot's own shutdown, exit 0 inside the grace period.
      const stopAt = Date.now();
      await docker("stop", "-t", "20", NAME);
      timings["stop seconds"] = Math.round((Date.now() - stopAt) / 1000);
      expect(await docker("inspect", "-f", "{{.State.ExitCode}}", NAME)).toBe("0");
      expect(await logs()).toContain("stopped");
    },
    5 * 60_000,
  );
});
