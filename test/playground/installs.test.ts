// The playground's "Installed to my account": a simulated user switched to an account install can
// use the bot in the server without it, through the page's API and the real bot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type DiscordDouble } from "../support/discord.ts";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

interface Boot {
  defaultChannelId: string;
  elsewhere: { id: string; name: string; channels: { id: string; name: string }[] }[];
}

let pg: TestPlayground;
let double: DiscordDouble;
let friendsChannel: string;

beforeAll(async () => {
  pg = await startTestPlayground();
  double = pg.playground.double;
  const boot = (await pageApi<Boot>(pg.url, "/api/bootstrap")).body;
  friendsChannel = boot.elsewhere[0]?.channels[0]?.id ?? "";
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  expect(pg?.errorLogs() ?? []).toEqual([]);
});

const commandNames = async (user: string, channelId: string) =>
  (
    await pageApi<{ commands: { name: string }[] }>(
      pg.url,
      `/api/commands?user=${user}&channelId=${channelId}`,
    )
  ).body.commands.map((c) => c.name);

describe("installed to my account", () => {
  it("GIVEN a server without the bot WHEN bob has not installed it to his account THEN the page offers him no command there, yet all of them in the server with the bot", async () => {
    expect(friendsChannel).toMatch(/^\d+$/);
    expect(await commandNames("bob", friendsChannel)).toEqual([]);
    expect(await commandNames("bob", double.channelId)).toContain("search");
    expect((await pageApi<{ installed: boolean }>(pg.url, "/api/installs?user=bob")).body.installed).toBe(
      false,
    );
  });

  it("GIVEN alice switched to installed to my account WHEN she runs /help in the server without the bot THEN the bot answers and Discord says her install authorized it", async () => {
    const switched = await pageApi<{ installed: boolean }>(pg.url, "/api/installs", {
      body: { user: "alice", installed: true },
    });
    expect(switched.body.installed).toBe(true);
    expect(await commandNames("alice", friendsChannel)).toContain("search");

    const answer = await pageApi<{ ok: boolean; interactionId: string }>(
      pg.url,
      "/api/interactions/command",
      {
        body: { user: "alice", channelId: friendsChannel, path: "help", options: {} },
      },
    );
    expect(answer.body.ok).toBe(true);
    const record = double.interaction(answer.body.interactionId);
    expect(record?.payload).toMatchObject({
      context: 0,
      authorizing_integration_owners: { "1": double.user("alice").id },
    });
    const reply = await double.waitFor(() =>
      double
        .messagesIn(friendsChannel)
        .find((m) => m.interactionId === answer.body.interactionId && !m.loading),
    );
    expect(textOf(reply)).toMatch(/installed to your account/i);
  });

  it("GIVEN a bad switch WHEN the page sends it THEN it is refused and nothing changes", async () => {
    const refused = await pageApi<{ error?: string }>(pg.url, "/api/installs", {
      body: { user: "bob", installed: "yes" },
    });
    expect(refused.status).toBe(400);
    expect(double.hasAccountInstall(double.user("bob").id)).toBe(false);
  });
});
