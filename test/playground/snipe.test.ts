// Snipe mode in the playground, through the page's own API: arm a rule in shadow, then live with
// the Arm confirmation, and let the sandbox panel's "matches my rule" listing trigger each.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type DiscordDouble, type StoredMessage } from "../support/discord.ts";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

interface Answer {
  ok: boolean;
  type?: number;
  data?: { custom_id?: string; components?: unknown[]; embeds?: unknown[] } | null;
}
interface Boot {
  users: { username: string; id?: string; dmChannelId: string }[];
  defaultChannelId: string;
}

let pg: TestPlayground;
let double: DiscordDouble;
let boot: Boot;

beforeAll(async () => {
  pg = await startTestPlayground();
  double = pg.playground.double;
  boot = (await pageApi<Boot>(pg.url, "/api/bootstrap")).body;
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  expect(pg?.errorLogs() ?? []).toEqual([]);
});

const alice = () => double.user("alice");
const command = async (path: string, options: Record<string, unknown> = {}) =>
  (
    await pageApi<Answer>(pg.url, "/api/interactions/command", {
      body: { user: "alice", channelId: boot.defaultChannelId, path, options },
    })
  ).body;

/** The final text of alice's last answer in the channel (deferred answers are edited in place). */
async function lastAnswer(contains: string): Promise<StoredMessage> {
  return double.waitFor(() =>
    double
      .messagesIn(boot.defaultChannelId)
      .filter((m) => !m.loading && textOf(m).includes(contains))
      .at(-1),
  );
}

const dm = (contains: string) =>
  double.waitForDm(alice().id, (m) => m.interactionId === undefined && textOf(m).includes(contains), 15_000);

/** The panel's "New listing → matches my rule": the template the page would post for `rule`. */
async function listingFor(rule: string): Promise<{ id: string }> {
  const { body } = await pageApi<{ rules: { name: string; template: Record<string, unknown> }[] }>(
    pg.url,
    "/api/sandbox/rule-listings?user=alice",
  );
  const template = body.rules.find((r) => r.name === rule)?.template;
  expect(template).toBeDefined();
  return (
    await pageApi<{ listing: { id: string } }>(pg.url, "/api/sandbox/listings", {
      body: { ...template, reference_price: 5_000 },
    })
  ).body.listing;
}

describe("snipe mode in the playground", () => {
  it("GIVEN alice linked with a rule WHEN she arms it in shadow, then live with Arm, and the panel lists matching items THEN one DM says what it would have bought and the next says Bought", async () => {
    const sandbox = await pageApi<{ account: { apiKey: string } }>(pg.url, "/api/sandbox?user=alice");
    const link = await command("account link");
    const modalId = link.data?.custom_id ?? "";
    expect(modalId).not.toBe("");
    await pageApi(pg.url, "/api/interactions/modal", {
      body: { user: "alice", customId: modalId, fields: { key: sandbox.body.account.apiKey } },
    });
    await lastAnswer("Account linked");

    await command("watch add", {
      name: "panel deal",
      item: "Falcon Rifle | Ember Tide (Field Worn)",
      max_price: 30,
    });
    await lastAnswer("Watching: panel deal");
    await command("watch arm", { rule: "panel deal", mode: "shadow", max_buys: 1 });
    await lastAnswer("Armed in shadow mode");
    const first = await listingFor("panel deal");
    const shadow = await dm(`Listing ${first.id}`);
    expect(textOf(shadow)).toContain("Shadow: would have bought");
    expect(textOf(shadow)).toContain("Net at reference");

    await command("watch arm", { rule: "panel deal", mode: "live", max_buys: 1 });
    const confirmation = await lastAnswer("Arm live: panel deal?");
    const armId = JSON.stringify(confirmation.components).match(/"label":"Arm","custom_id":"([^"]+)"/)?.[1];
    expect(armId).toBeDefined();
    await pageApi(pg.url, "/api/interactions/component", {
      body: { user: "alice", customId: armId, messageId: confirmation.id },
    });
    await lastAnswer("Armed live: panel deal");
    const second = await listingFor("panel deal");
    const bought = await dm(`Listing ${second.id}`);
    expect(textOf(bought)).toContain("Bought:");
    expect(textOf(bought)).toContain("1 of 1 buys used");
  });
});
