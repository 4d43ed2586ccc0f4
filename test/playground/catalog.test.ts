// The panel and the bot share one catalog: what the panel offers, the bot suggests; the panel
// shows the user's inventory with the asset ids /sell list takes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

interface SandboxState {
  catalog: string[];
  inventory: { asset_id: string; market_hash_name: string }[];
}

let pg: TestPlayground;
let channelId: string;

beforeAll(async () => {
  pg = await startTestPlayground();
  channelId = (await pageApi<{ defaultChannelId: string }>(pg.url, "/api/bootstrap")).body.defaultChannelId;
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  expect(pg?.errorLogs() ?? []).toEqual([]);
});

const suggest = async (path: string, options: Record<string, unknown>, focused: string) =>
  (
    await pageApi<{ ok: boolean; choices: { name: string; value: string }[] }>(
      pg.url,
      "/api/interactions/autocomplete",
      { body: { user: "alice", channelId, path, options, focused } },
    )
  ).body.choices;

describe("one catalog", () => {
  it("GIVEN the panel's item names WHEN the bot is asked for names of one finish THEN it suggests exactly the catalog's, listed or not", async () => {
    const { body } = await pageApi<SandboxState>(pg.url, "/api/sandbox?user=alice");
    expect(body.catalog).toContain("Falcon Rifle | Ember Tide (Pristine)");
    const molten = body.catalog.filter((n) => n.includes("Molten Gradient"));
    expect(molten.length).toBeGreaterThan(0);

    const choices = await suggest("buyorder create", { item: "molten gradient" }, "item");
    expect(choices.map((c) => c.value).sort()).toEqual([...molten].sort());
  });

  it("GIVEN alice in the panel WHEN her sandbox state is read THEN her inventory shows the README's asset ids", async () => {
    const { body } = await pageApi<SandboxState>(pg.url, "/api/sandbox?user=alice");
    const ids = body.inventory.map((a) => a.asset_id);
    expect(ids).toEqual(expect.arrayContaining(["31337", "31347"]));
    expect(body.inventory.length).toBeGreaterThanOrEqual(10);
  });
});
