// `npm start`'s two branches as real processes: without a token the playground (one banner, the page answers);
// with a token nothing of the playground is loaded or started.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, PLAYGROUND_DEFAULTS } from "../../src/config/index.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble } from "../support/discord.ts";
import { MAIN_TS, spawnNode, type BotProcess } from "../ops/support.ts";

const TSX_LOADER = pathToFileURL(
  fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url)),
).href;
const PLAYGROUND_DIR = fileURLToPath(new URL("../../src/playground/", import.meta.url));

/** A module hook that writes every resolved module URL to IMPORT_TRACE_FILE: what the process loaded. */
const TRACE_REGISTER = `import { register } from "node:module";\nregister(new URL("./trace-hooks.mjs", import.meta.url));\n`;
const TRACE_HOOKS = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.IMPORT_TRACE_FILE, result.url + "\\n");
  return result;
}
`;

describe("npm start", () => {
  let db: TestDatabase;
  let workDir: string;
  let child: BotProcess | undefined;
  const encryptionKey = randomBytes(32).toString("base64");

  beforeAll(async () => {
    db = await freshDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), "playground-main-"));
    await writeFile(path.join(workDir, "trace-register.mjs"), TRACE_REGISTER);
    await writeFile(path.join(workDir, "trace-hooks.mjs"), TRACE_HOOKS);
  });

  afterEach(async () => {
    await child?.kill();
    child = undefined;
  });

  afterAll(async () => {
    await db?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** src/main.ts as `npm start` runs it, in an empty folder (no .env), tracing the modules it loads. */
  function start(env: Record<string, string>, trace: string): BotProcess {
    child = spawnNode(
      [
        "--import",
        TSX_LOADER,
        "--import",
        pathToFileURL(path.join(workDir, "trace-register.mjs")).href,
        MAIN_TS,
      ],
      {
        DATABASE_URL: db.url,
        // The playground on a database given by URL must be asked for explicitly.
        PLAYGROUND: "true",
        ENCRYPTION_KEY: encryptionKey,
        DATA_DIR: workDir,
        HTTP_PORT: "0",
        LOG_LEVEL: "info",
        NODE_ENV: "test",
        IMPORT_TRACE_FILE: path.join(workDir, trace),
        ...env,
      },
      workDir,
    );
    return child;
  }

  const loaded = async (trace: string) => (await readFile(path.join(workDir, trace), "utf8")).split("\n");
  const fromPlayground = (urls: string[]) =>
    urls.filter((u) => u.startsWith("file:") && fileURLToPath(u).startsWith(PLAYGROUND_DIR));

  it("GIVEN no DISCORD_TOKEN WHEN npm start runs THEN one banner names the page, says no real money and how to use real Discord, and the page answers", async () => {
    const bot = start({ PLAYGROUND_PORT: "0" }, "no-token.trace");
    const url = await waitForText(bot, /Playground ready: open (http:\/\/127\.0\.0\.1:\d+\/)/, 30_000);
    const banner = bot.output();
    expect(banner.match(/Playground ready/g)).toHaveLength(1);
    expect(banner).toContain("no real money");
    expect(banner).toContain("set DISCORD_TOKEN in .env");

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    const boot = (await (await fetch(new URL("/api/bootstrap", url))).json()) as {
      users: { username: string }[];
    };
    expect(boot.users.map((u) => u.username)).toEqual(["alice", "bob"]);
    // The trace sees the playground: the check of the other branch below is not vacuous.
    expect(fromPlayground(await loaded("no-token.trace"))).not.toEqual([]);

    bot.child.kill("SIGTERM");
    expect((await bot.exited).code).toBe(0);
  }, 60_000);

  it("GIVEN a DISCORD_TOKEN WHEN npm start runs THEN the bot connects to that Discord, no playground module is loaded or port opened, and the database layer loads before the rest of the app", async () => {
    const double: DiscordDouble = await startDiscordDouble();
    try {
      const port = await freePort();
      const bot = start(
        {
          DISCORD_TOKEN: "real-looking-token",
          DISCORD_API_URL: double.apiUrl,
          PLAYGROUND_PORT: String(port),
        },
        "token.trace",
      );
      await bot.waitForLog(
        (l) => l.msg === "the bot is running; press Ctrl+C to stop",
        30_000,
        "the bot to run",
      );
      expect(double.isBotConnected()).toBe(true);
      expect(bot.output()).not.toContain("Playground");
      expect(await canConnect(port)).toBe(false);
      const urls = await loaded("token.trace");
      expect(urls.some((u) => u.endsWith("/src/main.ts"))).toBe(true);
      expect(fromPlayground(urls)).toEqual([]);
      // The database opens while the rest of the app loads: its layer comes before the app and discord.js.
      const firstOf = (part: string) => urls.findIndex((u) => u.includes(part));
      const databaseLayer = firstOf("/src/db/index.ts");
      expect(databaseLayer).toBeGreaterThan(-1);
      expect(databaseLayer).toBeLessThan(firstOf("/src/app.ts"));
      expect(databaseLayer).toBeLessThan(firstOf("/node_modules/discord.js/"));
      bot.child.kill("SIGTERM");
      expect((await bot.exited).code).toBe(0);
    } finally {
      await double.close();
    }
  }, 60_000);
});

describe("playground configuration", () => {
  it("GIVEN no DISCORD_TOKEN WHEN the configuration loads THEN alerts poll fast unless an interval is set", () => {
    const playground = loadConfig({});
    expect(playground.playground).toBe(true);
    expect(playground.POLL_INTERVAL_MS).toBe(PLAYGROUND_DEFAULTS.POLL_INTERVAL_MS);
    expect(playground.POLL_INTERVAL_MS).toBeLessThanOrEqual(1000);
    expect(loadConfig({ POLL_INTERVAL_MS: "5000" }).POLL_INTERVAL_MS).toBe(5000);
    expect(loadConfig({ DISCORD_TOKEN: "t" }).POLL_INTERVAL_MS).toBe(2000);
  });
});

/** Resolves with the first capture of `pattern` in the process's output. */
function waitForText(bot: BotProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      bot.child.stdout?.off("data", check);
      reject(new Error(`timed out waiting for ${pattern}:\n${bot.output().slice(-4000)}`));
    }, timeoutMs);
    const check = () => {
      const m = pattern.exec(bot.output());
      if (m) {
        clearTimeout(timer);
        bot.child.stdout?.off("data", check);
        resolve(m[1] ?? m[0]);
      }
    };
    bot.child.stdout?.on("data", check);
    void bot.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the process exited before ${pattern}:\n${bot.output().slice(-4000)}`));
    });
    check();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
