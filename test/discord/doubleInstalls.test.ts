// The double's account installs, through the real discord.js client: what an interaction carries
// for each install, which commands can run where, and the limits Discord puts on account installs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApplicationIntegrationType,
  DiscordAPIError,
  Events,
  InteractionContextType,
  MessageFlags,
  type Client,
} from "discord.js";
import {
  connectClient,
  isEphemeral,
  startDiscordDouble,
  withDeadline,
  type DiscordDouble,
} from "../support/discord.ts";
import { FOREIGN, guildsWithForeignServers } from "../support/installs.ts";

const BOTH = [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall];
const ALL_CONTEXTS = [
  InteractionContextType.Guild,
  InteractionContextType.BotDM,
  InteractionContextType.PrivateChannel,
];

const PRESS_ROW = { type: 1, components: [{ type: 2, style: 1, label: "Press", custom_id: "press" }] };

let double: DiscordDouble;
let client: Client<true>;
/** By interaction id: after its public reply, the test bot sends `followUps` follow-ups. */
const plans = new Map<string, ReturnType<typeof newPlan>>();

function newPlan(followUps: number) {
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  return { followUps, errors: [] as unknown[], done, finished };
}

beforeAll(async () => {
  double = await startDiscordDouble({ guilds: guildsWithForeignServers() });
  client = await connectClient(double);
  await client.rest.put(`/applications/${double.applicationId}/commands`, {
    body: [
      { name: "ping", description: "Pong", integration_types: BOTH, contexts: ALL_CONTEXTS },
      { name: "serveronly", description: "Only for server installs" },
    ],
  });
  client.on(Events.InteractionCreate, (i) => {
    if (i.isButton()) {
      void i.reply({ content: `pressed by ${i.user.username}`, flags: MessageFlags.Ephemeral });
      return;
    }
    if (!i.isChatInputCommand()) return;
    const mine = plans.get(i.id) ?? newPlan(0);
    void (async () => {
      await i.reply({ content: "pong", components: [PRESS_ROW] });
      for (let n = 1; n <= mine.followUps; n += 1) {
        try {
          await i.followUp({ content: `more ${n}` });
        } catch (error) {
          mine.errors.push(error);
        }
      }
      mine.finished();
    })();
  });
});

afterAll(async () => {
  await client?.destroy();
  await double?.close();
});

describe("account installs in the double", () => {
  it("GIVEN servers without the app WHEN the bot connects THEN only the server it is installed to reaches its gateway", () => {
    expect(client.guilds.cache.map((g) => g.id)).toEqual([double.guild.id]);
  });

  it("GIVEN alice installed the app to her account WHEN she runs a command in a server without the app, in a group DM and in the server with it THEN context and authorizing owners say so", async () => {
    const alice = double.user("alice");
    double.setAccountInstall(alice.id, true);
    try {
      const foreign = double.slash(alice, "ping", {}, { channelId: FOREIGN.open.channel });
      const group = double.slash(alice, "ping", {}, { privateChannel: true });
      const home = double.slash(alice, "ping");
      const dm = double.slash(alice, "ping", {}, { dm: true });

      expect(foreign.payload).toMatchObject({
        context: 0,
        authorizing_integration_owners: { "1": alice.id },
      });
      expect(foreign.payload.authorizing_integration_owners).not.toHaveProperty("0");
      expect(group.payload).toMatchObject({ context: 2, authorizing_integration_owners: { "1": alice.id } });
      expect(group.payload).not.toHaveProperty("guild_id");
      expect(home.payload).toMatchObject({
        context: 0,
        authorizing_integration_owners: { "0": double.guild.id, "1": alice.id },
      });
      expect(dm.payload).toMatchObject({
        context: 1,
        authorizing_integration_owners: { "0": "0", "1": alice.id },
      });
      for (const h of [foreign, group, home, dm]) expect((await h.finalMessage()).content).toBe("pong");
    } finally {
      double.setAccountInstall(alice.id, false);
    }
  });

  it("GIVEN bob has not installed the app to his account WHEN he tries a server without the app or a group DM THEN Discord offers him no command there", () => {
    const bob = double.user("bob");
    expect(() => double.slash(bob, "ping", {}, { channelId: FOREIGN.open.channel })).toThrow(/not available/);
    expect(() => double.slash(bob, "ping", {}, { privateChannel: true })).toThrow(/not available/);
  });

  it("GIVEN a command registered without integration_types WHEN an account install runs it where the app is not THEN it is not offered", () => {
    const alice = double.user("alice");
    double.setAccountInstall(alice.id, true);
    try {
      expect(() => double.slash(alice, "serveronly", {}, { channelId: FOREIGN.open.channel })).toThrow(
        /not available/,
      );
      expect(double.slash(alice, "serveronly").payload).toMatchObject({
        authorizing_integration_owners: { "0": double.guild.id },
      });
    } finally {
      double.setAccountInstall(alice.id, false);
    }
  });

  it("GIVEN only the account install authorized an interaction WHEN the app sends a sixth follow-up THEN Discord refuses it; the server install has no such limit", async () => {
    const alice = double.user("alice");
    double.setAccountInstall(alice.id, true);
    try {
      const foreign = double.slash(alice, "ping", {}, { channelId: FOREIGN.open.channel });
      const foreignPlan = newPlan(6);
      plans.set(foreign.id, foreignPlan);
      await withDeadline(foreignPlan.done, 5000, "six follow-ups tried");
      expect(foreign.followUps()).toHaveLength(5);
      expect(foreignPlan.errors).toHaveLength(1);
      expect(foreignPlan.errors[0]).toBeInstanceOf(DiscordAPIError);
      expect((foreignPlan.errors[0] as DiscordAPIError).status).toBe(400);

      const home = double.slash(alice, "ping");
      const homePlan = newPlan(6);
      plans.set(home.id, homePlan);
      await withDeadline(homePlan.done, 5000, "six follow-ups tried");
      expect(home.followUps()).toHaveLength(6);
      expect(homePlan.errors).toEqual([]);
    } finally {
      double.setAccountInstall(alice.id, false);
    }
  });

  it("GIVEN alice's public answer in a server without the app WHEN bob, who never installed it, presses its button THEN the interaction reaches the app with alice's install as its owner", async () => {
    const alice = double.user("alice");
    const bob = double.user("bob");
    double.setAccountInstall(alice.id, true);
    try {
      const answer = await double
        .slash(alice, "ping", {}, { channelId: FOREIGN.open.channel })
        .finalMessage();
      const press = double.button(bob, "press", answer);
      expect(press.payload).toMatchObject({ context: 0, authorizing_integration_owners: { "1": alice.id } });
      expect((press.payload.member as { user: { id: string } }).user.id).toBe(bob.id);
      expect((await press.finalMessage()).content).toBe("pressed by bob");
    } finally {
      double.setAccountInstall(alice.id, false);
    }
  });

  it("GIVEN a server whose members may not use external apps WHEN an account install answers publicly THEN the answer is ephemeral; where they may, it is public", async () => {
    const alice = double.user("alice");
    double.setAccountInstall(alice.id, true);
    try {
      const strict = await double
        .slash(alice, "ping", {}, { channelId: FOREIGN.strict.channel })
        .finalMessage();
      const open = await double.slash(alice, "ping", {}, { channelId: FOREIGN.open.channel }).finalMessage();
      expect(isEphemeral(strict)).toBe(true);
      expect(isEphemeral(open)).toBe(false);
    } finally {
      double.setAccountInstall(alice.id, false);
    }
  });

  it("GIVEN a server without the app WHEN the bot posts in its channel THEN Discord answers Missing Access", async () => {
    const refused = await withDeadline(
      client.rest.post(`/channels/${FOREIGN.open.channel}/messages`, { body: { content: "hello" } }).then(
        () => undefined,
        (error: unknown) => error,
      ),
      5000,
      "the refused post",
    );
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect((refused as DiscordAPIError).code).toBe(50001);
    expect(double.messagesIn(FOREIGN.open.channel).filter((m) => m.content === "hello")).toEqual([]);
  });
});
