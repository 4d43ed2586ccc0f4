// Standing checks on the rooms' boundaries: handlers (commands/) never touch the database (no
// Prisma, no src/db, no client or transaction type), and the dependency bag they get, BotDeps, holds
// no database client: they call the feature services built once by src/services.ts.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuleChangeHub } from "../../src/watch/changes.ts";
import { loadConfig } from "../../src/config/index.ts";
import { createKeyVault } from "../../src/db/keyVault.ts";
import type { BotDeps, FeatureServices } from "../../src/discord/deps.ts";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { createBotDeps } from "../../src/services.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

interface Import {
  /** Repository-relative for relative specifiers, else the package name. */
  readonly from: string;
  readonly names: readonly string[];
}

/** Static imports, re-exports and dynamic imports of a file. */
function importsOf(file: string): Import[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const found: Import[] = [];
  const add = (specifier: string, clause: string) => {
    const from = specifier.startsWith(".")
      ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier))
      : specifier;
    const names = [...clause.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0]);
    found.push({ from, names });
  };
  for (const m of text.matchAll(/(?:import|export)\s+([^;]*?)\s+from\s+["']([^"']+)["']/gs))
    add(m[2] as string, m[1] as string);
  for (const m of text.matchAll(/import\s*\(\s*["']([^"']+)["']\s*\)/g)) add(m[1] as string, "");
  for (const m of text.matchAll(/^import\s+["']([^"']+)["']/gm)) add(m[1] as string, "");
  return found;
}

/** What only the database's own code may name: the client, its transactions, the Db types. */
const DATABASE_NAMES = new Set(["PrismaClient", "Prisma", "Db", "Tx", "TransactionClient"]);

function databaseReach(file: string): string[] {
  const reasons: string[] = [];
  for (const imp of importsOf(file)) {
    if (/^src\/(db|generated)(\/|$)/.test(imp.from) || /^(@prisma\/|pg$|prisma$)/.test(imp.from))
      reasons.push(`imports ${imp.from}`);
    for (const name of imp.names)
      if (DATABASE_NAMES.has(name)) reasons.push(`imports ${name} from ${imp.from}`);
  }
  const code = readFileSync(path.join(ROOT, file), "utf8");
  if (/\bprisma\b/i.test(code)) reasons.push("names prisma");
  if (/\$(queryRaw|executeRaw|transaction)\b/.test(code)) reasons.push("runs raw queries or transactions");
  return reasons.map((r) => `${file}: ${r}`);
}

// Compile-time half of the BotDeps check (npm run typecheck fails on it): no field of BotDeps, nor
// of any feature service, is a database client or transaction.
type DatabaseLike = { $transaction: unknown } | { $queryRaw: unknown } | { $executeRaw: unknown };
type ClientFields<T> = { [K in keyof T]-?: T[K] extends DatabaseLike ? K : never }[keyof T];
type ServiceClientFields = {
  [K in keyof FeatureServices]-?: ClientFields<FeatureServices[K]>;
}[keyof FeatureServices];
const botDepsHoldNoClient: [ClientFields<BotDeps>, ServiceClientFields] extends [never, never]
  ? true
  : false = true;

describe("handlers never choose a marketplace key", () => {
  it("GIVEN every file under commands/ THEN none names the operator key or binds a key itself: reads come from ctx.deps.reads", () => {
    const files = sourceFiles("commands");
    const choosing = files.filter((f) =>
      /MARKET_API_KEY|\.forKey\(/.test(readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(choosing).toEqual([]);
  });
});

describe("handlers never touch the database", () => {
  it("GIVEN every file under commands/ THEN none imports Prisma, src/db or a database type, names prisma, or runs a raw query", () => {
    const files = sourceFiles("commands");
    expect(files.length).toBeGreaterThan(20);
    // The standing list of handlers that reach the database directly: kept at zero.
    expect(files.flatMap(databaseReach)).toEqual([]);
  });

  it("GIVEN the BotDeps contract (src/discord/deps.ts) THEN it imports nothing of the database AND no field of it or of its services is a client", () => {
    expect(databaseReach("src/discord/deps.ts")).toEqual([]);
    expect(botDepsHoldNoClient).toBe(true);
  });

  it("GIVEN a handler that would reach for the client THEN the check names it (the check itself works)", () => {
    const probe = "test/architecture/boundaries.test.ts";
    // This file imports src/db (for the runtime check below) and names the client: it must be caught.
    expect(databaseReach(probe).some((r) => r.includes("imports src/db/keyVault.ts"))).toBe(true);
    expect(databaseReach(probe).some((r) => r.includes("names prisma"))).toBe(true);
  });
});

describe("BotDeps as the app builds it", () => {
  let db: TestDatabase;
  let market: MarketClient;
  let deps: BotDeps;

  beforeAll(async () => {
    db = await freshDatabase();
    const logger = createLogger({ level: "silent" });
    const config = loadConfig({ NODE_ENV: "test" }, "/tmp");
    market = createMarketClient({ baseUrl: "http://127.0.0.1:9/api/v1", logger });
    deps = createBotDeps({
      config,
      logger,
      db: db.prisma,
      market,
      vault: createKeyVault(randomBytes(32)),
      now: () => new Date(),
      ruleChanges: createRuleChangeHub(logger),
      itemCatalog: [],
      commands: [],
    });
  });

  afterAll(async () => {
    await market?.close();
    await db?.close();
  });

  it("GIVEN the deps createBotDeps builds (what src/app.ts hands every handler) THEN no value in them, services included, is the database client", () => {
    const seen = new Set<unknown>();
    const clients: string[] = [];
    const walk = (value: unknown, where: string, depth: number) => {
      if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value))
        return;
      seen.add(value);
      if (value === db.prisma || (typeof value === "object" && "$transaction" in value)) {
        clients.push(where);
        return;
      }
      if (depth === 0 || typeof value === "function") return;
      for (const [key, inner] of Object.entries(value)) walk(inner, `${where}.${key}`, depth - 1);
    };
    walk(deps, "deps", 4);
    expect(clients).toEqual([]);
    for (const service of [
      "rules",
      "arming",
      "drafts",
      "trading",
      "accounts",
      "portfolio",
      "guards",
      "automation",
    ])
      expect(deps).toHaveProperty(service);
  });
});
