// The feed reads each page place first: only listings newer than its mark are decoded whole (ADR 042).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFeedPoller, feedStateStore } from "../../../src/feed/feedPoller.ts";
import { createLogger } from "../../../src/log.ts";
import { testClient } from "../../market/support/client.ts";
import { fixtures, startScriptedServer, type ScriptedServer } from "../../market/support/scriptedServer.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
let server: ScriptedServer;

beforeAll(async () => {
  db = await freshDatabase();
  server = await startScriptedServer();
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

const at = (second: number) => `2026-11-28T10:00:0${second}.000Z`;
const listing = (id: string, second: number, over: Record<string, unknown> = {}) =>
  fixtures.listing(id, { created_at: at(second), ...over });

describe("the feed decodes only what is new", () => {
  it("GIVEN a mark at listing 2 and a page whose new top listing and an old one below the mark do not read WHEN two cycles read it THEN the readable new listing is handed on once, the unreadable new one is reported once and passed, the old one never read", async () => {
    const before = { data: [listing("2", 2), listing("1", 1, { price: "abc" })], cursor: "" };
    const after = {
      data: [
        listing("4", 4, { price: "abc" }),
        listing("3", 3),
        listing("2", 2),
        listing("1", 1, { price: "abc" }),
      ],
      cursor: "",
    };
    server.on("GET", "/listings", { json: before }, { json: after }, { json: after });
    const { client, dropped } = testClient(server.baseUrl);
    const handed: string[][] = [];
    const feed = createFeedPoller({
      market: client,
      apiKey: "feed-places-key",
      logger: createLogger({ level: "silent" }),
      state: feedStateStore(db.prisma, "feed-places"),
      handle: async (listings) => {
        handed.push(listings.map((l) => l.id));
      },
      onGap: async () => {},
      intervalMs: 1_000,
      // Started after listing 2 was created: it becomes the mark, nothing before it alerts.
      startedAt: Date.parse("2026-11-28T10:00:02.500Z"),
    });

    try {
      const first = await feed.runOnce();
      expect(first.outcome).toBe("first_run");
      expect(feed.stats().mark?.listingId).toBe("2");
      expect(dropped).toEqual([]);

      await feed.runOnce();
      expect(handed).toEqual([["3"]]);
      expect(dropped).toEqual([{ endpoint: "GET /listings", what: "listing", count: 1 }]);
      expect(feed.stats().mark?.listingId).toBe("4");

      await feed.runOnce();
      expect(handed).toEqual([["3"]]);
      expect(dropped).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
