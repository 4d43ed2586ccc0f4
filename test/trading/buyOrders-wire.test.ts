// What an edit of an advanced buy order (made on the website) puts on the wire, against a local
// server that records every request: price and quantity, never a name or an expression we lack.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureUser, updateSettings } from "../../src/db/repos/users.ts";
import { createLogger } from "../../src/log.ts";
import type { MarketClient } from "../../src/market/client.ts";
import { editBuyOrder } from "../../src/trading/buyOrderEdit.ts";
import { listBuyOrders } from "../../src/trading/buyOrders.ts";
import type { TradingDeps } from "../../src/trading/deps.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { testClient } from "../market/support/client.ts";
import { startScriptedServer, type ScriptedServer } from "../market/support/scriptedServer.ts";
import { rejection } from "./world.ts";

const EXPRESSION = 'Wear < 0.07 && (Seed == 661 || Seed == 670) && Name ~= "Rifle"';
const websiteOrder = (over: Record<string, unknown> = {}) => ({
  id: "501",
  created_at: "2026-11-20T10:00:00Z",
  expression: EXPRESSION,
  price: 1000,
  qty: 3,
  bought_item_count: 1,
  ...over,
});

let server: ScriptedServer;
let client: MarketClient;
let deps: TradingDeps;
let db: TestDatabase;
let userId: number;
/** The acting user and a fresh key per edit (edits go through the spending guard). */
const as = () => ({ userId, idempotencyKey: randomUUID() });

beforeAll(async () => {
  db = await freshDatabase();
  userId = (await ensureUser(db.prisma, "700000000000000001")).id;
  await updateSettings(db.prisma, userId, { perPurchaseCapCents: null, dailyCapCents: null });
});

afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  server = await startScriptedServer();
  client = testClient(server.baseUrl).client;
  deps = {
    market: client.forKey("k3y-AbC123"),
    logger: createLogger({ level: "silent" }),
    prisma: db.prisma,
  };
  server.on("GET", "/me/buy-orders", { json: { orders: [websiteOrder()], count: 1 } });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const patchBodies = () =>
  server.requestsTo("PATCH", "/buy-orders/501").map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe("advanced buy orders on the wire", () => {
  it("GIVEN an advanced order WHEN listed THEN the view carries its expression and no item name", async () => {
    const page = await listBuyOrders(deps, { page: 0 });

    expect(page.orders).toEqual([
      expect.objectContaining({
        orderId: "501",
        itemName: undefined,
        expression: EXPRESSION,
        boughtCount: 1,
      }),
    ]);
  });

  it("GIVEN an advanced order WHEN its price and quantity change THEN the PATCH sends them with no name and no expression", async () => {
    server.on("PATCH", "/buy-orders/501", { json: websiteOrder({ price: 1200, qty: 4 }) });

    const edited = await editBuyOrder(deps, { ...as(), orderId: "501", maxPriceCents: 1200, quantity: 4 });

    expect(edited).toMatchObject({
      orderId: "501",
      expression: EXPRESSION,
      maxPriceCents: 1200,
      quantity: 4,
    });
    const [body, ...more] = patchBodies();
    expect(more).toEqual([]);
    // The update is absolute: every constraint field goes, null for none (the website's order has none).
    expect(body).toEqual({
      max_price: 1200,
      quantity: 4,
      min_float: null,
      max_float: null,
      paint_index: null,
      paint_seeds: null,
      applied_stickers: null,
      applied_keychains: null,
      min_keychain_pattern: null,
      max_keychain_pattern: null,
    });
  });

  it("GIVEN an advanced order WHEN only the price changes THEN the quantity sent is the current one", async () => {
    server.on("PATCH", "/buy-orders/501", { json: websiteOrder({ price: 800 }) });

    await editBuyOrder(deps, { ...as(), orderId: "501", maxPriceCents: 800 });

    expect(patchBodies()[0]).toMatchObject({ max_price: 800, quantity: 3 });
  });

  it("GIVEN an advanced order WHEN the answer to the edit names no target THEN the reply still shows the expression", async () => {
    server.on("PATCH", "/buy-orders/501", { json: { id: "501", price: 1100, qty: 3 } });

    const edited = await editBuyOrder(deps, { ...as(), orderId: "501", maxPriceCents: 1100 });

    expect(edited).toMatchObject({ expression: EXPRESSION, itemName: undefined, maxPriceCents: 1100 });
  });

  it.each([
    ["a new constraint", { constraints: { maxFloat: 0.05 } }],
    ["a constraint to clear", { clear: ["minFloat"] }],
    ["a price and a constraint", { maxPriceCents: 900, constraints: { paintSeeds: [7] } }],
  ])(
    "GIVEN an advanced order WHEN %s is asked THEN it is refused, naming the website, and nothing is sent",
    async (_, change) => {
      const error = await rejection(() => editBuyOrder(deps, { ...as(), orderId: "501", ...change }));

      expect(error).toMatchObject({ code: "invalid_input" });
      expect((error as Error).message).toContain("can only be edited on the website");
      expect(server.requestsTo("PATCH", "/buy-orders/501")).toEqual([]);
    },
  );
});
