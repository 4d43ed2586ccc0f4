// The local Discord double, exercised through the real discord.js client over HTTP and WebSocket.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  DiscordAPIError,
  Events,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  PermissionFlagsBits,
  TextInputBuilder,
  TextInputStyle,
  type Client,
  type Interaction,
} from "discord.js";
import {
  connectClient,
  DEFAULT_IDS,
  defaultGuild,
  shardOf,
  startDiscordDouble,
  textOf,
  withDeadline,
  type DiscordDouble,
} from "../support/discord.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

const commands = [
  {
    name: "watch",
    description: "Watch an item",
    options: [
      {
        name: "add",
        description: "Add a rule",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "item",
            description: "Item",
            type: ApplicationCommandOptionType.String,
            required: true,
            autocomplete: true,
          },
          { name: "max_price", description: "USD", type: ApplicationCommandOptionType.Number },
          { name: "count", description: "How many", type: ApplicationCommandOptionType.Integer },
          { name: "channel", description: "Where", type: ApplicationCommandOptionType.Channel },
          { name: "for", description: "Who", type: ApplicationCommandOptionType.User },
        ],
      },
    ],
  },
  { name: "ping", description: "Pong" },
];

let double: DiscordDouble;
let client: Client<true>;

function onInteraction(handler: (i: Interaction) => Promise<void>): void {
  client.on(Events.InteractionCreate, (i) => {
    handler(i).catch(() => undefined);
  });
}

/** Resolves with what a handler threw (or undefined), so tests can assert on discord.js errors. */
function captureInteraction(handler: (i: Interaction) => Promise<void>): Promise<unknown> {
  return new Promise((resolve) => {
    client.once(Events.InteractionCreate, (i) => {
      handler(i).then(
        () => resolve(undefined),
        (error: unknown) => resolve(error),
      );
    });
  });
}

beforeAll(async () => {
  double = await startDiscordDouble();
  client = await connectClient(double);
  await client.rest.put(`/applications/${double.applicationId}/commands`, { body: commands });
});

afterEach(() => {
  client.removeAllListeners(Events.InteractionCreate);
  double.faults.clear();
  double.sendBudget = undefined;
  double.interactionTokenTtlMs = 3000;
});

afterAll(async () => {
  await client?.destroy();
  await double?.close();
});

describe("gateway", () => {
  it("GIVEN a bot token WHEN discord.js logs in THEN READY and GUILD_CREATE fill its caches with guild, channels, members and roles", () => {
    const guild = client.guilds.cache.get(double.guild.id);
    expect(guild?.name).toBe("Test Traders");
    expect(guild?.channels.cache.get(double.channelId)?.type).toBe(ChannelType.GuildText);
    const alice = guild?.members.cache.get(double.user("alice").id);
    const bob = guild?.members.cache.get(double.user("bob").id);
    expect(alice?.permissions.has(PermissionFlagsBits.ManageChannels)).toBe(true);
    expect(bob?.permissions.has(PermissionFlagsBits.ManageChannels)).toBe(false);
    expect(client.user.id).toBe(double.botUser.id);
    expect(double.requests.some((r) => r.method === "GET" && r.path === "/gateway/bot")).toBe(true);
  });

  it("GIVEN a connected bot WHEN the socket drops THEN discord.js RESUMEs and a dispatch sent while down is replayed", async () => {
    const received = captureInteraction(async (i) => {
      if (i.isChatInputCommand()) await i.reply({ content: "after resume" });
    });
    const resumed = double.dropGateway();
    const handle = double.slash(double.user("alice"), "ping");
    await resumed;
    expect(await withDeadline(received, 5000, "the replayed interaction")).toBeUndefined();
    expect(textOf(await handle.finalMessage())).toBe("after resume");
    expect(double.isBotConnected()).toBe(true);
  });
});

describe("sharding", () => {
  it("GIVEN two guilds and two shards WHEN discord.js identifies per shard THEN each shard gets its guild and interactions reach the right one", async () => {
    const base = defaultGuild(DEFAULT_IDS.application);
    // Guild ids chosen so that (id >> 22) % 2 puts one on each shard.
    const second = {
      ...base,
      id: "1187364777439215696",
      channels: [{ id: "1187364778160000001", name: "other", type: ChannelType.GuildText }],
    };
    const other = await startDiscordDouble({ guilds: [base, second], maxConcurrency: 2 });
    const sharded = await connectClient(other, { shardCount: 2 });
    try {
      expect(shardOf(base.id, 2)).not.toBe(shardOf(second.id, 2));
      expect(sharded.guilds.cache.map((g) => g.id).sort()).toEqual([base.id, second.id].sort());
      expect(sharded.guilds.cache.get(second.id)?.shardId).toBe(shardOf(second.id, 2));
      sharded.on(Events.InteractionCreate, (i) => {
        if (i.isChatInputCommand()) void i.reply(`shard ${i.guild?.shardId}`);
      });
      const reply = await other
        .slash(other.user("alice"), "ping", [], { guildId: second.id, channelId: "1187364778160000001" })
        .finalMessage();
      expect(reply.content).toBe(`shard ${shardOf(second.id, 2)}`);
    } finally {
      await sharded.destroy();
      await other.close();
    }
  });
});

describe("commands and interactions", () => {
  it("GIVEN registered commands WHEN GET THEN the stored definitions come back with ids", async () => {
    const listed = (await client.rest.get(`/applications/${double.applicationId}/commands`)) as {
      name: string;
      id: string;
    }[];
    expect(listed.map((c) => c.name)).toEqual(["watch", "ping"]);
    expect(listed.every((c) => /^\d{17,20}$/.test(c.id))).toBe(true);
  });

  it("GIVEN a slash with typed options WHEN dispatched THEN discord.js reads strings, numbers, integers, channels and users", async () => {
    let seen: Record<string, unknown> = {};
    onInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      seen = {
        sub: i.options.getSubcommand(),
        item: i.options.getString("item"),
        max: i.options.getNumber("max_price"),
        count: i.options.getInteger("count"),
        channelType: i.options.getChannel("channel")?.type,
        forUser: i.options.getUser("for")?.username,
        guild: i.guildId,
        locale: i.locale,
        canManage: i.memberPermissions?.has(PermissionFlagsBits.ManageChannels),
      };
      await i.reply({ content: "ok", flags: MessageFlags.Ephemeral });
    });
    const alice = double.user("alice");
    const handle = double.slash(alice, "watch add", {
      item: "Blue Knife",
      max_price: 12.5,
      count: 3,
      channel: double.channelId,
      for: double.user("bob"),
    });
    const first = await handle.firstResponse();
    expect(first.type).toBe(4);
    expect(seen).toEqual({
      sub: "add",
      item: "Blue Knife",
      max: 12.5,
      count: 3,
      channelType: ChannelType.GuildText,
      forUser: "bob",
      guild: double.guild.id,
      locale: "en-US",
      canManage: true,
    });
    expect((await handle.finalMessage()).flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
  });

  it("GIVEN options in nested subcommand form WHEN dispatched THEN they arrive as the same subcommand and options", async () => {
    let seen = "";
    onInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      seen = `${i.options.getSubcommand()} ${i.options.getString("item")}`;
      await i.reply("ok");
    });
    await double.slash(double.user("bob"), "watch", { add: { item: "Red Gloves" } }).finalMessage();
    expect(seen).toBe("add Red Gloves");
    expect(() => double.slash(double.user("bob"), "watch add", { colour: "red" })).toThrow(
      /no option "colour"/,
    );
    expect(() => double.slash(double.user("bob"), "watch add", {})).toThrow(/requires option "item"/);
  });

  it("GIVEN an acknowledged interaction WHEN the bot answers again THEN Discord refuses with 40060", async () => {
    const error = captureInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply("first");
      // Bypass discord.js's own guard to hit the double as a second process would.
      await client.rest.post(`/interactions/${i.id}/${i.token}/callback`, {
        body: { type: 4, data: { content: "second" } },
        auth: false,
      });
    });
    const handle = double.slash(double.user("bob"), "ping");
    const thrown = await withDeadline(error, 5000, "the second callback");
    expect(thrown).toBeInstanceOf(DiscordAPIError);
    expect((thrown as DiscordAPIError).code).toBe(40060);
    expect(handle.record.responses).toHaveLength(1);
  });

  it("GIVEN an interaction token past its window WHEN the bot replies THEN Discord answers 10062 Unknown interaction", async () => {
    const error = captureInteraction(async (i) => {
      if (i.isChatInputCommand()) await i.reply("too late");
    });
    const handle = double.slash(double.user("bob"), "ping", {}, { expired: true });
    const thrown = await withDeadline(error, 5000, "the late reply");
    expect((thrown as DiscordAPIError).code).toBe(10062);
    expect(handle.record.rejectedCallbacks).toHaveLength(1);
    expect(handle.record.responses).toHaveLength(0);
  });

  it("GIVEN a deferral WHEN the bot edits and follows up THEN finalMessage is the edited @original and follow-ups are kept", async () => {
    onInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply({ flags: MessageFlags.Ephemeral });
      await i.editReply({ content: "done", files: [new AttachmentBuilder(PNG, { name: "chart.png" })] });
      await i.followUp({ content: "one more thing", flags: MessageFlags.Ephemeral });
    });
    const handle = double.slash(double.user("alice"), "ping");
    expect((await handle.firstResponse()).type).toBe(5);
    const final = await handle.finalMessage();
    expect(final.content).toBe("done");
    expect(final.attachments[0]?.filename).toBe("chart.png");
    expect(final.attachments[0]?.data.equals(PNG)).toBe(true);
    await handle.waitFor((s) => s.followUps.length === 1);
    expect(handle.followUps()[0]?.content).toBe("one more thing");
    const edit = double.requests.find((r) => r.method === "PATCH" && r.path.endsWith("/messages/@original"));
    expect(edit?.files[0]?.filename).toBe("chart.png");
  });

  it("GIVEN a reply and a follow-up WHEN the bot fetches, edits the follow-up by id and deletes @original THEN the double applies each", async () => {
    onInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      const response = await i.reply({ content: "first", withResponse: true });
      const fetched = await i.fetchReply();
      const follow = await i.followUp({ content: `follow of ${fetched.content}` });
      await i.editReply({
        message: follow.id,
        content: `edited (${response.resource?.message?.content ?? "?"})`,
      });
      await i.deleteReply();
    });
    const handle = double.slash(double.user("alice"), "ping");
    await handle.waitFor((s) => s.original === undefined && s.followUps[0]?.editedAt !== undefined);
    expect(handle.followUps()[0]?.content).toBe("edited (first)");
    expect(double.message(handle.record.originalMessageId ?? "")?.deleted).toBe(true);
    expect((await handle.finalMessage()).content).toBe("edited (first)");
  });

  it("GIVEN a button on a message WHEN a user presses it and the bot updates THEN the source message changes", async () => {
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId("press:1").setLabel("Press").setStyle(ButtonStyle.Primary),
    );
    onInteraction(async (i) => {
      if (i.isChatInputCommand()) await i.reply({ content: "choose", components: [row] });
      if (i.isButton())
        await i.update({ content: `pressed ${i.customId} by ${i.user.username}`, components: [] });
    });
    const reply = await double.slash(double.user("alice"), "ping").finalMessage();
    const press = double.button(double.user("bob"), "press:1", reply);
    expect((await press.firstResponse()).type).toBe(7);
    expect((await press.finalMessage()).content).toBe("pressed press:1 by bob");
    expect(double.message(reply.id)?.components).toEqual([]);
    expect(() => double.button(double.user("bob"), "missing", reply)).toThrow(/no component/);
  });

  it("GIVEN a modal shown with labels WHEN the user submits THEN discord.js reads the text inputs", async () => {
    let submitted = "";
    onInteraction(async (i) => {
      if (i.isChatInputCommand()) {
        await i.showModal(
          new ModalBuilder()
            .setCustomId("link:form")
            .setTitle("Link")
            .addLabelComponents(
              new LabelBuilder()
                .setLabel("API key")
                .setTextInputComponent(
                  new TextInputBuilder().setCustomId("key").setStyle(TextInputStyle.Short).setMinLength(4),
                ),
            ),
        );
      }
      if (i.isModalSubmit()) {
        submitted = i.fields.getTextInputValue("key");
        await i.reply({ content: "thanks", flags: MessageFlags.Ephemeral });
      }
    });
    const alice = double.user("alice");
    expect((await double.slash(alice, "ping").firstResponse()).type).toBe(9);
    expect(() => double.modalSubmit(alice, "link:form", { key: "abc" })).toThrow(/at least 4/);
    const submit = double.modalSubmit(alice, "link:form", { key: "secret-1234" });
    expect((await submit.finalMessage()).content).toBe("thanks");
    expect(submitted).toBe("secret-1234");
  });

  it("GIVEN a focused option WHEN autocomplete is dispatched THEN the choices come back as type 8", async () => {
    onInteraction(async (i) => {
      if (!i.isAutocomplete()) return;
      const typed = i.options.getFocused();
      await i.respond([{ name: `${typed} (Factory New)`, value: `${typed}-fn` }]);
    });
    const handle = double.autocomplete(double.user("bob"), "watch add", { item: "Blue" }, "item");
    const first = await handle.firstResponse();
    expect(first.type).toBe(8);
    expect(first.data?.choices).toEqual([{ name: "Blue (Factory New)", value: "Blue-fn" }]);
  });

  it("GIVEN a select menu WHEN the user picks values THEN discord.js reads them", async () => {
    let values: string[] = [];
    onInteraction(async (i) => {
      if (!i.isStringSelectMenu()) return;
      values = i.values;
      await i.deferUpdate();
      await i.editReply({ content: `picked ${i.values.join(",")}` });
    });
    const handle = double.select(double.user("alice"), "pick:x", ["a", "b"]);
    expect((await handle.firstResponse()).type).toBe(6);
    expect((await handle.finalMessage()).content).toBe("picked a,b");
    expect(values).toEqual(["a", "b"]);
  });

  it("GIVEN a DM interaction THEN it has no guild and discord.js sees a DM channel", async () => {
    let inGuild: boolean | undefined;
    onInteraction(async (i) => {
      if (!i.isChatInputCommand()) return;
      inGuild = i.inGuild();
      await i.reply("hi in DM");
    });
    const handle = double.slash(double.user("bob"), "ping", {}, { dm: true });
    await handle.finalMessage();
    expect(inGuild).toBe(false);
    expect(handle.payload.guild_id).toBeUndefined();
    expect(double.dmChannelOf(double.user("bob").id)).toBe(handle.record.channelId);
  });
});

describe("messages, DMs and faults", () => {
  it("GIVEN an open DM WHEN the bot sends THEN the double stores it; GIVEN closed DMs THEN 403 code 50007", async () => {
    const alice = double.user("alice");
    const user = await client.users.fetch(alice.id);
    await user.send({ content: "hello alice", files: [new AttachmentBuilder(PNG, { name: "p.png" })] });
    const dm = await double.waitForDm(alice.id, (m) => m.content === "hello alice");
    expect(dm.attachments).toHaveLength(1);

    double.closeDms(alice.id);
    const failure = await user.send("again").then(
      () => undefined,
      (e: unknown) => e,
    );
    double.openDms(alice.id);
    expect((failure as DiscordAPIError).code).toBe(50007);
    expect((failure as DiscordAPIError).status).toBe(403);
  });

  it("GIVEN a 429 fault on sends WHEN the bot sends THEN @discordjs/rest waits retry-after and the message arrives", async () => {
    double.faults.add({ method: "POST", path: /^\/channels\/\d+\/messages$/, status: 429, retryAfter: 0.05 });
    const channel = await client.channels.fetch(double.channelId);
    if (!channel?.isSendable()) throw new Error("channel not sendable");
    await channel.send("through the limit");
    const sends = double.requests.filter(
      (r) => r.method === "POST" && r.path === `/channels/${double.channelId}/messages`,
    );
    expect(sends.slice(-2).map((r) => r.status)).toEqual([429, 200]);
    expect(double.faults.pending).toBe(0);
  });

  it("GIVEN a 403 fault WHEN the bot sends THEN discord.js throws the fault's code", async () => {
    double.faults.add({ path: "/messages", status: 403, code: 50001, message: "Missing Access" });
    const channel = await client.channels.fetch(double.channelId);
    if (!channel?.isSendable()) throw new Error("channel not sendable");
    const error = await channel.send("nope").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as DiscordAPIError).code).toBe(50001);
  });

  it("GIVEN a per-channel send budget WHEN the bot sends more than it allows THEN the headers slow it down and all arrive", async () => {
    double.sendBudget = { limit: 2, windowMs: 200 };
    const channelId = double.guild.channels[1]?.id ?? "";
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isSendable()) throw new Error("channel not sendable");
    await Promise.all([1, 2, 3].map((n) => channel.send(`n${n}`)));
    expect(
      double
        .messagesIn(channelId)
        .map((m) => m.content)
        .sort(),
    ).toEqual(["n1", "n2", "n3"]);
    const sends = double.requests.filter((r) => r.path === `/channels/${channelId}/messages`);
    expect(sends.every((r) => r.status === 200)).toBe(true);
  });

  it("GIVEN a per-channel send budget WHEN a client ignores the headers THEN the send over budget is refused with 429 and retry-after", async () => {
    double.sendBudget = { limit: 1, windowMs: 60_000 };
    const channelId = double.guild.channels[1]?.id ?? "";
    const post = () =>
      fetch(`${double.apiUrl}/v10/channels/${channelId}/messages`, {
        method: "POST",
        headers: { authorization: "Bot test-token", "content-type": "application/json" },
        body: JSON.stringify({ content: "raw" }),
      });
    const first = await post();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("0");
    const second = await post();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await second.json()) as { retry_after: number }).retry_after).toBeGreaterThan(0);
  });

  it("GIVEN messages with embeds WHEN listed THEN GET returns newest first; an empty message is refused with 50006", async () => {
    const channelId = double.guild.channels[1]?.id ?? "";
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isSendable()) throw new Error("channel not sendable");
    await channel.send({ embeds: [{ title: "Deal", description: "cheap", color: 0x2ecc71 }] });
    const listed = (await client.rest.get(`/channels/${channelId}/messages`)) as {
      embeds: { title: string }[];
    }[];
    expect(listed[0]?.embeds[0]?.title).toBe("Deal");
    const error = await client.rest.post(`/channels/${channelId}/messages`, { body: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as DiscordAPIError).code).toBe(50006);
  });

  it("GIVEN the double WHEN a request arrives THEN a request event is emitted with method, path and status", async () => {
    const seen: string[] = [];
    const listener = (r: { method: string; path: string; status: number }) =>
      seen.push(`${r.method} ${r.path} ${r.status}`);
    double.on("request", listener);
    await client.rest.get("/users/@me");
    double.off("request", listener);
    expect(seen).toEqual(["GET /users/@me 200"]);
  });
});
