// Configuration rules between variables: a real marketplace needs the operator's key.
import { describe, expect, it } from "vitest";
import { ConfigError, dropEmptyEnvironment, loadConfig } from "../src/config/index.ts";

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env, "/tmp");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("configuration", () => {
  it("GIVEN MARKET_BASE_URL without MARKET_API_KEY WHEN the configuration loads THEN it is refused with a message naming the key and why", () => {
    const problems = problemsOf({ MARKET_BASE_URL: "https://market.example/api/v1" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MARKET_API_KEY: required with MARKET_BASE_URL/);
    expect(problems[0]).toContain("refuses reads without a key");
  });

  it("GIVEN an empty MARKET_API_KEY= line WHEN MARKET_BASE_URL is set THEN it counts as missing", () => {
    expect(
      problemsOf({ MARKET_BASE_URL: "https://market.example/api/v1", MARKET_API_KEY: "  " }),
    ).toHaveLength(1);
  });

  it("GIVEN MARKET_BASE_URL and MARKET_API_KEY WHEN the configuration loads THEN it is accepted", () => {
    const config = loadConfig(
      { MARKET_BASE_URL: "https://market.example/api/v1", MARKET_API_KEY: "k" },
      "/tmp",
    );
    expect(config.sandboxInProcess).toBe(false);
    expect(config.MARKET_API_KEY).toBe("k");
  });

  it("GIVEN neither WHEN the configuration loads THEN the built-in sandbox is used and no key is needed", () => {
    const config = loadConfig({}, "/tmp");
    expect(config.sandboxInProcess).toBe(true);
    expect(config.MARKET_API_KEY).toBeUndefined();
  });

  it("GIVEN a bad variable and a missing key WHEN the configuration loads THEN both problems are listed at once", () => {
    const problems = problemsOf({ MARKET_BASE_URL: "https://market.example/api/v1", HTTP_PORT: "http" });
    expect(problems.some((p) => p.startsWith("MARKET_API_KEY"))).toBe(true);
    expect(problems.some((p) => p.startsWith("HTTP_PORT"))).toBe(true);
  });

  it("GIVEN NODE_ENV=production without a token WHEN the configuration loads THEN it is refused instead of starting a playground", () => {
    const problems = problemsOf({ NODE_ENV: "production" });
    expect(problems).toEqual([expect.stringMatching(/^DISCORD_TOKEN: required with NODE_ENV=production/)]);
    expect(problemsOf({ NODE_ENV: "production", PLAYGROUND: "true" })).toEqual([]);
  });

  it("GIVEN a DATABASE_URL without a token WHEN the configuration loads THEN it is refused unless PLAYGROUND=true asks for it", () => {
    const url = "postgresql://bot@db.example:5432/bot";
    const key = Buffer.alloc(32, 1).toString("base64");
    expect(problemsOf({ DATABASE_URL: url, ENCRYPTION_KEY: key })).toEqual([
      expect.stringMatching(/^DISCORD_TOKEN: required with DATABASE_URL/),
    ]);
    expect(problemsOf({ DATABASE_URL: url, ENCRYPTION_KEY: key, PLAYGROUND: "true" })).toEqual([]);
    expect(problemsOf({ DATABASE_URL: url, ENCRYPTION_KEY: key, DISCORD_TOKEN: "t" })).toEqual([]);
  });

  it("GIVEN empty KEY= lines in the environment WHEN the bot starts THEN they are removed, so libraries reading the environment see them unset", () => {
    const env: NodeJS.ProcessEnv = { SHARD_COUNT: "", SHARDS: " ", LOG_LEVEL: "info" };
    expect(dropEmptyEnvironment(env).sort()).toEqual(["SHARDS", "SHARD_COUNT"]);
    expect(env).toEqual({ LOG_LEVEL: "info" });
  });

  it("GIVEN an installation without the embedded Postgres (the Docker image) WHEN DATABASE_URL is unset or empty THEN it is listed with every other problem", () => {
    const without = (env: Record<string, string>) => {
      try {
        loadConfig(env, "/tmp", "bot", { embeddedPostgres: false });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(without({ DISCORD_TOKEN: "t", DATABASE_URL: "", HTTP_PORT: "http" })).toEqual([
      expect.stringMatching(/^HTTP_PORT: /),
      expect.stringMatching(/^DATABASE_URL: required here: this installation has no embedded Postgres/),
    ]);
    expect(without({ DISCORD_TOKEN: "t", DATABASE_URL: "postgresql://bot@db:5432/bot" })).toEqual([]);
    expect(problemsOf({ DISCORD_TOKEN: "t" }), "npm start keeps the embedded Postgres").toEqual([]);
  });

  it("GIVEN SHARD_COUNT without a shared database and marketplace WHEN the configuration loads THEN both are listed with the other problems, before anything starts", () => {
    expect(problemsOf({ DISCORD_TOKEN: "t", SHARD_COUNT: "2", LOG_LEVEL: "loud" })).toEqual([
      expect.stringMatching(/^LOG_LEVEL: /),
      expect.stringMatching(/^DATABASE_URL: required with SHARD_COUNT/),
      expect.stringMatching(/^MARKET_BASE_URL: required with SHARD_COUNT/),
    ]);
    const shared = {
      DISCORD_TOKEN: "t",
      SHARD_COUNT: "auto",
      DATABASE_URL: "postgresql://bot@db.example:5432/bot",
      MARKET_BASE_URL: "https://market.example/api/v1",
      MARKET_API_KEY: "k",
    };
    expect(problemsOf(shared)).toEqual([]);
    expect(problemsOf({ SHARD_COUNT: "2" }), "the playground ignores SHARD_COUNT").toEqual([]);
  });

  it("GIVEN an http MARKET_BASE_URL WHEN it is not on this machine THEN it is refused; loopback is allowed", () => {
    const withKey = (url: string) => problemsOf({ MARKET_BASE_URL: url, MARKET_API_KEY: "k" });
    expect(withKey("http://market.example/api/v1")).toEqual([
      expect.stringMatching(/^MARKET_BASE_URL: must use https/),
    ]);
    expect(withKey("https://market.example/api/v1")).toEqual([]);
    expect(withKey("http://127.0.0.1:8787/api/v1")).toEqual([]);
    expect(withKey("http://localhost:8787/api/v1")).toEqual([]);
    expect(withKey("http://[::1]:8787/api/v1")).toEqual([]);
  });

  it("GIVEN SELLER_FEE_PERCENT WHEN the configuration loads THEN 2 is the default, decimals are kept and bad values are listed", () => {
    expect(loadConfig({}, "/tmp").SELLER_FEE_PERCENT).toBe(2);
    expect(loadConfig({ SELLER_FEE_PERCENT: "2.5" }, "/tmp").SELLER_FEE_PERCENT).toBe(2.5);
    for (const bad of ["abc", "101", "-1"]) {
      expect(problemsOf({ SELLER_FEE_PERCENT: bad })).toEqual([
        expect.stringMatching(/^SELLER_FEE_PERCENT: /),
      ]);
    }
  });

  it("GIVEN REVERSAL_WINDOW_HOURS WHEN the configuration loads THEN 168 (7 days) is the default and bad values are listed", () => {
    expect(loadConfig({}, "/tmp").REVERSAL_WINDOW_HOURS).toBe(168);
    expect(loadConfig({ REVERSAL_WINDOW_HOURS: "72" }, "/tmp").REVERSAL_WINDOW_HOURS).toBe(72);
    for (const bad of ["abc", "-1", "1.5"]) {
      expect(problemsOf({ REVERSAL_WINDOW_HOURS: bad })).toEqual([
        expect.stringMatching(/^REVERSAL_WINDOW_HOURS: /),
      ]);
    }
  });

  it("GIVEN PLAYGROUND=maybe WHEN the configuration loads THEN it says the flag takes true or false", () => {
    expect(problemsOf({ PLAYGROUND: "maybe" })).toEqual([
      expect.stringMatching(/^PLAYGROUND: must be true or false/),
    ]);
  });

  it("GIVEN a DATABASE_URL without a token WHEN a command-line tool (migrate, rotate a key) loads the configuration THEN it is accepted", () => {
    const config = loadConfig({ DATABASE_URL: "postgresql://bot@db.example:5432/bot" }, "/tmp", "tool");
    expect(config.embeddedDatabase).toBe(false);
  });

  it("GIVEN an ENCRYPTION_KEY that only decodes to 32 bytes by skipping characters WHEN loaded THEN it is refused; a canonical one is accepted", () => {
    const good = Buffer.alloc(32, 7).toString("base64");
    expect(problemsOf({ ENCRYPTION_KEY: good })).toEqual([]);
    expect(problemsOf({ ENCRYPTION_KEY: good.replace(/=$/, "") })).toEqual([]);
    expect(problemsOf({ ENCRYPTION_KEY: `${good.slice(0, 20)}!!${good.slice(20)}` })).toEqual([
      expect.stringMatching(/^ENCRYPTION_KEY: must be exactly 32 bytes/),
    ]);
    expect(problemsOf({ ENCRYPTION_KEY: Buffer.alloc(31).toString("base64") })).toHaveLength(1);
  });
});
