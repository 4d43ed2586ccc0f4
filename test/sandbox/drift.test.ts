// Contract drift on demand through the sandbox's control API: the answers change, the world does not.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sandbox: Sandbox;
let key: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  key = sandbox.users[0]?.apiKey ?? "";
});

afterEach(() => sandbox.control.clearDrift());

afterAll(async () => {
  await sandbox?.close();
});

async function control(
  method: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sandbox.controlUrl}/drift`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function api(path: string): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: key } });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

type Page = { data: { price: unknown; item: Record<string, unknown> }[] };

describe("POST /_control/drift", () => {
  it("GIVEN a renamed item field and prices as dollar strings WHEN listings are read THEN they come that way; WHEN DELETE THEN as before", async () => {
    const before = (await api("/listings?limit=5")).json as Page;
    const set = await control("POST", {
      renameFields: { "item.market_hash_name": "name" },
      retypeFields: { price: "dollars" },
    });
    expect(set.status).toBe(200);

    const drifted = (await api("/listings?limit=5")).json as Page;
    const first = drifted.data[0];
    expect(first?.item["market_hash_name"]).toBeUndefined();
    expect(first?.item["name"]).toBe(before.data[0]?.item["market_hash_name"]);
    expect(first?.price).toBe(((before.data[0]?.price as number) / 100).toFixed(2));

    expect((await control("DELETE")).json).toEqual({ drift: {} });
    expect(((await api("/listings?limit=5")).json as Page).data[0]).toEqual(before.data[0]);
  });

  it("GIVEN a route dropped WHEN it is called THEN 404 with an error body, other routes unchanged", async () => {
    await control("POST", { dropRoutes: ["GET /me/trades"] });

    const gone = await api("/me/trades");
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    expect((await api("/me/buy-orders")).status).toBe(200);
  });

  it("GIVEN the reset unit set to milliseconds WHEN any route answers THEN X-RateLimit-Reset is epoch milliseconds", async () => {
    await control("POST", { resetUnit: "epoch-milliseconds" });

    const reset = Number((await api("/me")).headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() - 1000);
    // The live budgets' windows are an hour long at most for this route.
    expect(reset).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
  });

  it("GIVEN an unknown drift option WHEN posted THEN 400 and no drift is in force", async () => {
    const refused = await control("POST", {
      renameFields: { "item.market_hash_name": "name" },
      deleteEverything: true,
    });

    expect(refused.status).toBe(400);
    expect((await control("GET")).json).toEqual({ drift: {} });
  });
});
