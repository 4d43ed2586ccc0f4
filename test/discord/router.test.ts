// The router's error boundary, ownership and expiry checks, autocomplete budget and metrics, end to end.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { encodeCustomId } from "../../src/discord/customId.ts";
import { sendDm } from "../../src/discord/outbound/dm.ts";
import type { InteractionObservation } from "../../src/discord/router.ts";
import { isEphemeral, textOf } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";
import { probe, probeCalls } from "./probe.ts";

let bot: Bot;
const observations: InteractionObservation[] = [];

beforeAll(async () => {
  bot = await startBot({
    extraCommands: [probe],
    // Pollers would add marketplace traffic of their own; these tests count requests.
    backgroundServices: false,
    autocompleteBudgetMs: 150,
    routerMetrics: { observeInteraction: (o) => observations.push(o) },
  });
  await bot.link(bot.users.alice);
});

afterAll(async () => {
  await bot?.stop();
});

beforeEach(() => {
  bot.sandbox.control.clearFaults();
  bot.double.faults.clear();
});

describe("error boundary", () => {
  it("GIVEN a handler that throws WHEN the user runs it THEN they get a generic message with an error id, the error is logged with context, and the bot keeps serving", async () => {
    const { alice } = bot.users;
    const reply = await bot.double.slash(alice, "probe crash").finalMessage();
    const text = textOf(reply);
    const errorId = /error id `([0-9A-F]{8})`/.exec(text)?.[1];
    expect(errorId).toBeDefined();
    expect(text).not.toContain("kaboom");
    expect(isEphemeral(reply)).toBe(true);

    const logged = bot.errorLogs().find((l) => l.errorId === errorId);
    expect(logged).toMatchObject({ userId: alice.id, kind: "command", name: "probe crash" });
    expect(String((logged?.err as { message?: string } | undefined)?.message)).toContain("kaboom");
    expect(logged?.interactionId).toMatch(/^\d{17,20}$/);

    const help = await bot.double.slash(alice, "help").finalMessage();
    expect(textOf(help)).toContain("/account");
  });

  it("GIVEN a handler that deferred publicly WHEN it throws THEN the public 'thinking' message is removed and the error is shown privately", async () => {
    const handle = bot.double.slash(bot.users.alice, "probe crash-deferred");
    expect((await handle.firstResponse()).type).toBe(5);
    const final = await handle.finalMessage();
    expect(textOf(final)).toMatch(/Something went wrong \(error id `[0-9A-F]{8}`\)/);
    expect(isEphemeral(final)).toBe(true);
    expect(
      handle.record.originalMessageId && bot.double.message(handle.record.originalMessageId)?.deleted,
    ).toBe(true);
  });

  it("GIVEN a UserFacingError WHEN the handler throws it THEN the user reads exactly its message, ephemerally, and nothing is logged as an error", async () => {
    const errorsBefore = bot.errorLogs().length;
    const reply = await bot.double.slash(bot.users.bob, "probe refuse").finalMessage();
    expect(textOf(reply)).toBe("⚠️ You already have 50 rules; remove one first.");
    expect(isEphemeral(reply)).toBe(true);
    expect(bot.errorLogs()).toHaveLength(errorsBefore);
  });

  it("GIVEN a command that needs a linked account WHEN an unlinked user runs it THEN they are told how to link", async () => {
    const reply = await bot.double.slash(bot.users.bob, "probe market").finalMessage();
    expect(textOf(reply)).toContain("Link your marketplace account first: run `/account link`");
  });

  it("GIVEN the marketplace answers 503 WHEN a command reads from it THEN the user reads that the marketplace is having trouble", async () => {
    bot.sandbox.control.injectFault({ path: "/me/transactions", kind: "status", status: 503, times: 5 });
    const reply = await bot.double.slash(bot.users.alice, "probe market").finalMessage();
    expect(textOf(reply)).toContain("The marketplace is having trouble right now");
  });

  it("GIVEN an interaction token that already expired WHEN the bot answers THEN Discord refuses, the bot logs it and keeps serving", async () => {
    const { alice } = bot.users;
    const late = bot.double.slash(alice, "help", {}, { expired: true });
    await late.waitFor((s) => s.record.rejectedCallbacks.length > 0);
    expect(late.record.responses).toHaveLength(0);
    await bot.waitForLog((l) => l.interactionId === late.id && l.msg.includes("expired"));
    expect(bot.errorLogs().filter((l) => l.interactionId === late.id)).toEqual([]);
    expect(textOf(await bot.double.slash(alice, "help").finalMessage())).toContain("/help");
  });
});

describe("components", () => {
  it("GIVEN alice's public button WHEN bob presses it THEN he is told it isn't his and nothing reaches the marketplace; WHEN alice presses it THEN it works", async () => {
    const { alice, bob } = bot.users;
    const post = await bot.double.slash(alice, "probe button").finalMessage();
    const customId = String(
      ((post.components[0] as { components: { custom_id: string }[] }).components[0] ?? { custom_id: "" })
        .custom_id,
    );
    const statsBefore = bot.sandbox.control.stats();
    const tapsBefore = probeCalls.tap;

    const refused = await bot.double.button(bob, customId, post).finalMessage();
    expect(textOf(refused)).toBe("⚠️ This isn't yours — run the command yourself.");
    expect(isEphemeral(refused)).toBe(true);
    expect(bot.sandbox.control.stats()).toEqual(statsBefore);
    expect(probeCalls.tap).toBe(tapsBefore);

    const accepted = await bot.double.button(alice, customId, post).finalMessage();
    expect(textOf(accepted)).toBe("read ledger for subject 123");
    expect(bot.sandbox.control.stats().total).toBeGreaterThan(statsBefore.total);
  });

  it("GIVEN a malformed custom id WHEN pressed THEN the user gets a clear message and no handler runs", async () => {
    const tapsBefore = probeCalls.tap;
    const reply = await bot.double.button(bot.users.alice, "probe.tap:not an id!").finalMessage();
    expect(textOf(reply)).toContain("This button is damaged or from an old version of the bot");
    expect(probeCalls.tap).toBe(tapsBefore);
  });

  it("GIVEN an expired custom id WHEN its owner presses it THEN they are told it expired and no handler runs", async () => {
    const { alice } = bot.users;
    const tapsBefore = probeCalls.tap;
    const expired = encodeCustomId({
      action: "probe.tap",
      subject: "1",
      owner: alice.id,
      expiresAt: Date.now() - 60_000,
    });
    const reply = await bot.double.button(alice, expired).finalMessage();
    expect(textOf(reply)).toBe("⚠️ This button has expired; run the command again.");
    expect(probeCalls.tap).toBe(tapsBefore);
  });

  it("GIVEN a custom id whose action no module handles WHEN pressed THEN the user is told it is no longer supported", async () => {
    const id = encodeCustomId({ action: "gone.away", subject: "", owner: bot.users.alice.id });
    const reply = await bot.double.button(bot.users.alice, id).finalMessage();
    expect(textOf(reply)).toContain("no longer supported");
  });
});

describe("autocomplete and metrics", () => {
  it("GIVEN an autocomplete handler slower than its budget WHEN the user types THEN the bot answers no choices within the budget", async () => {
    const handle = bot.double.autocomplete(bot.users.alice, "probe search", { query: "Blu" }, "query");
    const first = await handle.firstResponse();
    expect(first.type).toBe(8);
    expect(first.data?.choices).toEqual([]);
    expect(first.elapsedMs).toBeLessThan(1000);
    await vi.waitFor(() =>
      expect(observations.some((o) => o.kind === "autocomplete" && o.outcome === "timeout")).toBe(true),
    );
  });

  it("GIVEN the metrics hook WHEN a command is answered THEN it observes the latency to the first callback", async () => {
    await bot.double.slash(bot.users.bob, "help").finalMessage();
    const seen = await vi.waitFor(() => {
      const found = observations.find((o) => o.name === "help" && o.outcome === "ok");
      if (!found) throw new Error("no observation yet");
      return found;
    });
    expect(seen.kind).toBe("command");
    expect(seen.firstResponseMs).toBeGreaterThanOrEqual(0);
    expect(seen.firstResponseMs).toBeLessThan(1000);
  });
});

describe("DM delivery", () => {
  it("GIVEN open DMs WHEN the runtime sends a DM THEN it arrives; GIVEN closed DMs THEN the result says so", async () => {
    const { alice } = bot.users;
    const sent = await sendDm(bot.app.client, alice.id, { content: "A deal matched your rule" });
    expect(sent.ok).toBe(true);
    const dm = await bot.double.waitForDm(alice.id, (m) => m.content === "A deal matched your rule");
    expect(sent.ok && sent.messageId).toBe(dm.id);

    bot.double.closeDms(alice.id);
    try {
      const refused = await sendDm(bot.app.client, alice.id, { content: "another" });
      expect(refused).toEqual({ ok: false, reason: "dms_closed", code: 50007 });
    } finally {
      bot.double.openDms(alice.id);
    }
  });
});
