// The playground's HTTP API without a browser: who sees which message, real interactions, files, live events, and its guard rails.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type DiscordDouble } from "../support/discord.ts";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

interface MessageView {
  id: string;
  channelId: string;
  content: string;
  embeds: { title?: string; description?: string; image?: { url: string } }[];
  attachments: { url: string; contentType?: string; inEmbed: boolean }[];
  ephemeral: boolean;
  command?: { user: { username: string }; name: string };
}
interface Answer {
  ok: boolean;
  type?: number;
  data?: Record<string, unknown> | null;
  error?: string;
}
interface Boot {
  users: { username: string; dmChannelId: string }[];
  defaultChannelId: string;
}
interface Command {
  name: string;
  options?: { name: string; type: number; options?: { name: string; autocomplete?: boolean }[] }[];
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

const dmOf = (name: string) => boot.users.find((u) => u.username === name)?.dmChannelId ?? "";
const messages = async (user: string, channelId: string) =>
  (await pageApi<{ messages: MessageView[] }>(pg.url, `/api/messages?user=${user}&channelId=${channelId}`))
    .body.messages;
const command = (
  user: string,
  path: string,
  options: Record<string, unknown> = {},
  channelId = boot.defaultChannelId,
) => pageApi<Answer>(pg.url, "/api/interactions/command", { body: { user, channelId, path, options } });

describe("commands in the page", () => {
  it("GIVEN the bot registered its commands WHEN the page asks THEN it gets the definitions themselves, subcommands, options and autocomplete flags included", async () => {
    const { body } = await pageApi<{ commands: Command[] }>(
      pg.url,
      `/api/commands?user=alice&channelId=${boot.defaultChannelId}`,
    );
    const watch = body.commands.find((c) => c.name === "watch");
    const add = watch?.options?.find((o) => o.name === "add");
    expect(add?.type).toBe(1);
    expect(add?.options?.find((o) => o.name === "item")?.autocomplete).toBe(true);
    expect(body.commands.map((c) => c.name)).toEqual(
      double
        .registeredCommands()
        .map((c) => c.name)
        .sort((a, b) => a.localeCompare(b)),
    );
  });

  it("GIVEN an item option WHEN the page asks for suggestions THEN a real autocomplete interaction answers with the bot's choices", async () => {
    const before = double.interactions().filter((i) => i.kind === "autocomplete").length;
    const { body } = await pageApi<{ ok: boolean; choices: { name: string; value: string }[] }>(
      pg.url,
      "/api/interactions/autocomplete",
      {
        body: {
          user: "alice",
          channelId: boot.defaultChannelId,
          path: "history",
          options: { item: "Ember Tide" },
          focused: "item",
        },
      },
    );
    expect(body.ok).toBe(true);
    expect(body.choices.length).toBeGreaterThan(0);
    expect(body.choices.every((c) => c.value.includes("Ember Tide"))).toBe(true);
    expect(double.interactions().filter((i) => i.kind === "autocomplete")).toHaveLength(before + 1);
  });

  it("GIVEN a numeric option typed as text WHEN the command is sent THEN it reaches the bot as a number, and junk is refused", async () => {
    const { body } = await command("alice", "history", {
      item: "Falcon Rifle | Ember Tide (Field Worn)",
      paint_index: "7",
    });
    expect(body.ok).toBe(true);
    const sent = double.interactions().at(-1)?.payload.data as {
      options: { name: string; value: unknown }[];
    };
    expect(sent.options.find((o) => o.name === "paint_index")?.value).toBe(7);
    const before = double.interactions().length;
    const bad = await command("alice", "watch add", { name: "x", min_float: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("min_float");
    expect(double.interactions()).toHaveLength(before);
  });
});

describe("who sees what", () => {
  it("GIVEN alice runs a private command WHEN bob and alice read the channel THEN only alice sees the ephemeral answer, marked as hers", async () => {
    const { body } = await command("alice", "account status");
    expect(body.ok).toBe(true);
    await double.waitFor(() =>
      double
        .messagesIn(boot.defaultChannelId)
        .find((m) => !m.loading && textOf(m).includes("No marketplace account")),
    );
    const aliceSees = await messages("alice", boot.defaultChannelId);
    const bobSees = await messages("bob", boot.defaultChannelId);
    const answer = aliceSees.find((m) => m.ephemeral && m.command?.name === "/account status");
    expect(answer?.command?.user.username).toBe("alice");
    expect(bobSees.some((m) => m.id === answer?.id)).toBe(false);
  });

  it("GIVEN the bot DMs alice WHEN bob asks for alice's DM channel THEN he gets nothing", async () => {
    double.postMessage(dmOf("alice"), { content: "for alice only" });
    expect((await messages("alice", dmOf("alice"))).map((m) => m.content)).toContain("for alice only");
    expect(await messages("bob", dmOf("alice"))).toEqual([]);
  });

  it("GIVEN a chart posted in the channel WHEN the page loads it THEN the embed points at the upload, served as an image no page can run from", async () => {
    const { body } = await command("alice", "history", { item: "Falcon Rifle | Ember Tide (Field Worn)" });
    expect(body.ok).toBe(true);
    const chart = await double.waitFor(
      () => double.messagesIn(boot.defaultChannelId).find((m) => m.attachments.length > 0 && !m.loading),
      10_000,
    );
    const view = (await messages("bob", boot.defaultChannelId)).find((m) => m.id === chart.id);
    const file = view?.attachments[0];
    expect(file?.inEmbed).toBe(true);
    expect(view?.embeds[0]?.image?.url).toBe(file?.url);
    const response = await fetch(new URL(`${file?.url}?user=bob`, pg.url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-security-policy")).toContain("sandbox");
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
  });
});

describe("live events", () => {
  it("GIVEN alice and bob listening WHEN the bot DMs alice THEN alice's stream carries it and bob's does not", async () => {
    const alice = listen("alice", "live alert for alice");
    const bob = listen("bob", "live alert for alice");
    await Promise.all([alice.opened, bob.opened]);
    double.postMessage(dmOf("alice"), { content: "live alert for alice" });
    expect(await alice.received).toContain("live alert for alice");
    // Bob's stream is still open and hears later public messages, but never alice's DM.
    double.postMessage(boot.defaultChannelId, { content: "public news" });
    const bobSaw = await bob.until("public news");
    expect(bobSaw).not.toContain("live alert for alice");
  });
});

/** An event stream as the page opens it; `opened` resolves once the server has registered it. */
function listen(user: string, stopAt: string) {
  const controller = new AbortController();
  let text = "";
  const waiters: { needle: string; resolve: (text: string) => void }[] = [];
  let markOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    markOpened = resolve;
  });
  const settle = () => {
    for (const w of [...waiters]) {
      if (text.includes(w.needle)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(text);
      }
    }
  };
  void (async () => {
    const response = await fetch(new URL(`/api/events?user=${user}`, pg.url), { signal: controller.signal });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk);
        markOpened();
        settle();
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();
  const until = (needle: string) =>
    new Promise<string>((resolve) => {
      waiters.push({ needle, resolve: (t) => resolve(t) });
      settle();
    }).finally(() => controller.abort());
  return { opened, received: until(stopAt), until };
}

describe("guard rails", () => {
  it("GIVEN the sandbox panel WHEN it makes a website buy order and odd and unreadable listings THEN they have the live shapes", async () => {
    const order = await pageApi<{ order: Record<string, unknown> }>(pg.url, "/api/sandbox/website-orders", {
      body: { user: "alice", marketHashName: "Falcon Rifle | Ember Tide (Pristine)", maxPrice: 1_500 },
    });
    expect(order.status).toBe(200);
    expect(order.body.order["expression"]).toContain("Falcon Rifle | Ember Tide (Pristine)");
    expect(order.body.order).not.toHaveProperty("market_hash_name");

    const odd = await pageApi<{ listing: { item: Record<string, unknown> } }>(
      pg.url,
      "/api/sandbox/listings/odd",
      {
        body: { price: 1_200 },
      },
    );
    expect(odd.status).toBe(200);
    expect(typeof odd.body.listing.item["sticker_index"]).toBe("string");
    const bad = await pageApi<{ listing: { id: string } }>(pg.url, "/api/sandbox/listings/unreadable", {
      body: {},
    });
    expect(bad.status).toBe(200);
    expect(bad.body.listing.id).toMatch(/^\d+$/);
  });

  it("GIVEN a sale from the panel WHEN it is reversed before and after verification THEN refused first, then rolled back on both sides", async () => {
    const alice = pg.sandbox.users.find((u) => u.name === "alice");
    if (!alice) throw new Error("no alice");
    const sale = await pageApi<{ trade: { id: string } }>(pg.url, "/api/sandbox/sales", {
      body: { user: "alice" },
    });
    const tradeId = sale.body.trade.id;
    const early = await pageApi<{ error?: string }>(pg.url, "/api/sandbox/reversals", { body: { tradeId } });
    expect(early.status).toBe(400);

    await pg.playground.app.market.forKey(alice.apiKey).acceptTrade(tradeId);
    await pageApi(pg.url, "/api/sandbox/clock", { body: { ms: 3_660_000 } });
    const before = pg.sandbox.control.balance(alice.platformId).balance;
    const reversed = await pageApi<{ trade: { id: string } }>(pg.url, "/api/sandbox/reversals", {
      body: { tradeId },
    });
    expect(reversed.status).toBe(200);
    const ledger = await pg.playground.app.market
      .forKey(alice.apiKey)
      .getTransactions({ type: "rollback", order: "desc", limit: 1 });
    expect(ledger.transactions[0]?.details?.trade_id).toBe(tradeId);
    expect(pg.sandbox.control.balance(alice.platformId).balance).toBe(
      before + Number(ledger.transactions[0]?.balance_offset ?? 0),
    );
    expect(ledger.transactions[0]?.balance_offset).toBeLessThan(0);
  });

  it("GIVEN the Faults card's contract drift WHEN a renamed item field is applied THEN the state lists it and the bot names the drift; WHEN cleared THEN it is over", async () => {
    const key = pg.sandbox.users[0]?.apiKey;
    const market = pg.playground.app.market;

    const applied = await pageApi<{ drift: { renameFields?: Record<string, string> } }>(
      pg.url,
      "/api/sandbox/drift",
      {
        body: { kind: "rename" },
      },
    );
    expect(applied.status).toBe(200);
    expect(applied.body.drift.renameFields).toEqual({ "item.market_hash_name": "name" });
    await market.forKey(key).searchListings({ limit: 50 });
    expect(market.contractDrift.summary()).toContain("GET /listings data[].item.market_hash_name (missing)");

    const cleared = await pageApi<{ drift: object }>(pg.url, "/api/sandbox/drift", { method: "DELETE" });
    expect(cleared.body.drift).toEqual({});
    await market.forKey(key).searchListings({ limit: 50 });
    expect(market.contractDrift.summary()).toBeUndefined();
  });

  it("GIVEN a request naming another host WHEN it arrives THEN it is refused (no DNS rebinding)", async () => {
    // fetch() will not send a foreign Host header; a plain HTTP request does, as a rebound browser would.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        new URL("/api/bootstrap", pg.url),
        { headers: { host: "attacker.example" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it("GIVEN a cross-site form post WHEN it arrives THEN nothing is dispatched", async () => {
    const before = double.interactions().length;
    const foreign = await pageApi(pg.url, "/api/interactions/command", {
      body: { user: "alice", channelId: boot.defaultChannelId, path: "account unlink", options: {} },
      headers: { origin: "https://attacker.example" },
    });
    const form = await fetch(new URL("/api/interactions/command", pg.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "user=alice",
    });
    expect(foreign.status).toBe(403);
    expect(form.status).toBe(415);
    expect(double.interactions()).toHaveLength(before);
  });

  it("GIVEN the page WHEN it is served THEN a content security policy allows only its own scripts", async () => {
    const response = await fetch(pg.url);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(response.status).toBe(200);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
  });
});
