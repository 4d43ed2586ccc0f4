// Test support for the playground: the whole thing started in-process on a fresh database, and the browser.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/index.ts";
import type { Database } from "../../src/db/index.ts";
import { createLogger } from "../../src/log.ts";
import { startPlayground, type Playground } from "../../src/playground/index.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { freshDatabase } from "../support/db.ts";

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

export interface TestPlayground {
  readonly playground: Playground;
  readonly sandbox: Sandbox;
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly logs: LogLine[];
  errorLogs(): LogLine[];
  stop(): Promise<void>;
}

/** The playground as `npm start` runs it without a token, on a fresh test database and free ports. */
export async function startTestPlayground(
  env: Readonly<Record<string, string>> = {},
  /** The page's port; 0 (default) picks a free one. A restart test gives the port the page had. */
  port = 0,
): Promise<TestPlayground> {
  const db = await freshDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), "playground-test-"));
  const logs: LogLine[] = [];
  const logger = createLogger(
    { level: "info", name: "playground-test" },
    {
      write(text: string) {
        for (const line of text.split("\n")) if (line.trim() !== "") logs.push(JSON.parse(line) as LogLine);
      },
    },
  );
  const cleanup = async () => {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // No DISCORD_TOKEN: the configuration `npm start` sees on a fresh checkout, plus test plumbing.
    const config = loadConfig(
      {
        DATABASE_URL: db.url,
        // The playground on a database given by URL must be asked for explicitly.
        PLAYGROUND: "true",
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        DATA_DIR: dataDir,
        HTTP_PORT: "0",
        NODE_ENV: "test",
        ...env,
      },
      dataDir,
    );
    const database: Database = {
      prisma: db.prisma,
      url: db.url,
      embedded: false,
      pool: db.pool,
      close: async () => undefined,
    };
    const playground = await startPlayground({ config, logger, port, overrides: { database } });
    const sandbox = playground.app.sandbox;
    if (!sandbox) throw new Error("the playground started without its sandbox");
    let stopped: Promise<void> | undefined;
    return {
      playground,
      sandbox,
      url: playground.url,
      logs,
      errorLogs: () => logs.filter((l) => l.level >= 50),
      stop() {
        stopped ??= (async () => {
          await playground.stop();
          await cleanup();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Debian's Chromium (what .ci/run installs), or CHROMIUM_PATH's. */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((p): p is string => p !== undefined && p !== "" && existsSync(p));
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A JSON request to the playground's API, as the page sends it. */
export async function pageApi<T>(
  base: string,
  route: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(new URL(route, base), {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}
