// Every command example in README.md, typed verbatim: read by the page's own parser, sent through the
// playground's API to the real bot, and answered with a real message (not "No command matches", not
// an option error, not a crash).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessage } from "../../src/playground/discord/index.ts";
import {
  commandOfLine,
  leafCommands,
  parseCommandLine,
  problemWith,
  type CommandDef,
  type Leaf,
} from "../../src/playground/web/slashCommands.js";
import { EXAMPLE_ITEM } from "../../src/sandbox/catalog.ts";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const ANSWER_WAIT_MS = 10_000;

/** Inline code spans that start with a slash: commands, and also paths such as `/healthz`. */
const spans = [...README.matchAll(/`(\/[^`\n]+)`/g)].map((m) => (m[1] ?? "").trim());

interface Answered {
  readonly ok: boolean;
  readonly error?: string;
  readonly interactionId?: string;
  readonly type?: number;
  readonly data?: { custom_id?: string; components?: unknown[] } | null;
}

/** What a user reads in a message: its text and its embeds' text. */
function textOf(m: StoredMessage): string {
  const embeds = (m.embeds ?? []).map((e) =>
    [e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value])].join("\n"),
  );
  return [m.content ?? "", ...embeds].join("\n").trim();
}

describe("the README's command examples, typed into the playground", () => {
  let pg: TestPlayground;
  let leaves: Leaf[];
  let topNames: Set<string>;
  let channelId: string;
  /** What the README's `<listing id>` and `<auction id>` stand for in this start of the sandbox. */
  let ids: Record<string, string>;

  beforeAll(async () => {
    pg = await startTestPlayground();
    channelId = pg.playground.double.channelId;
    const { body } = await pageApi<{ commands: CommandDef[] }>(
      pg.url,
      `/api/commands?user=alice&channelId=${channelId}`,
    );
    leaves = leafCommands(body.commands);
    topNames = new Set(body.commands.map((c) => c.name));
    await linkAlice();
    ids = await sandboxIds();
  }, 60_000);

  afterAll(async () => {
    await pg?.stop();
  });

  const send = async (path: string, options: Record<string, string>) =>
    (
      await pageApi<Answered>(pg.url, "/api/interactions/command", {
        body: { user: "alice", channelId, path, options },
      })
    ).body;

  /** As the README says to find them: the example item's cheapest listing, and the cheapest auction. */
  async function sandboxIds(): Promise<Record<string, string>> {
    const key = pg.sandbox.users.find((u) => u.name === "alice")?.apiKey ?? "";
    // Plain fetch, as any client would: the market client's own HTTP stack stays the bot's.
    const first = async (query: string): Promise<string> => {
      const res = await fetch(`${pg.sandbox.baseUrl}/listings?${query}`, { headers: { authorization: key } });
      const page = (await res.json()) as { data?: { id: string }[] };
      const id = page.data?.[0]?.id;
      if (id === undefined) throw new Error(`the fresh sandbox has no listing for ${query}`);
      return id;
    };
    const item = new URLSearchParams({ market_hash_name: EXAMPLE_ITEM }).toString();
    return {
      "<listing id>": await first(`${item}&sort_by=lowest_price&type=buy_now`),
      "<auction id>": await first("sort_by=lowest_price&type=auction"),
    };
  }

  /** A template whose only placeholders are ids the sandbox has, filled in; else undefined. */
  const filled = (span: string): string | undefined => {
    const out = span.replace(/<listing id>|<auction id>/g, (p) => ids[p] ?? p);
    return out !== span && !/…|<[^>]+>/.test(out) ? out : undefined;
  };

  /** /account link as the README says: the form, filled with the key the panel shows. */
  async function linkAlice(): Promise<void> {
    const form = await send("account link", {});
    expect(form.type).toBe(9);
    const inputId = /"type":4,"custom_id":"([^"]+)"/.exec(JSON.stringify(form.data))?.[1] ?? "";
    const key = pg.sandbox.users.find((u) => u.name === "alice")?.apiKey ?? "";
    const submitted = await pageApi<Answered>(pg.url, "/api/interactions/modal", {
      body: {
        user: "alice",
        customId: form.data?.custom_id ?? "",
        fields: { [inputId]: key },
      },
    });
    // The form's answer may be a deferral: linking is done once its final message says so.
    const linked = await answerOf(submitted.body.interactionId ?? "");
    expect(textOf(linked)).toContain("Account linked");
  }

  /** The message the user ends up reading for an interaction, as Discord's client shows it. */
  function answerOf(interactionId: string): Promise<StoredMessage> {
    const double = pg.playground.double;
    const probe = (): StoredMessage | undefined => {
      const record = double.interaction(interactionId);
      const first = record?.responses[0];
      if (!record || !first || record.originalMessageId === undefined) return undefined;
      const original = double.message(record.originalMessageId);
      if (!original || original.deleted) return record.followUpIds.map((id) => double.message(id)).at(-1);
      return first.type === 5 && original.loading ? undefined : original;
    };
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        double.off("message", later);
        double.off("interactionResponse", later);
      };
      const check = () => {
        const found = probe();
        if (found) {
          stop();
          resolve(found);
        }
      };
      // The interaction learns which message is its reply just after the message's own event.
      const later = () => setImmediate(check);
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no answer within ${ANSWER_WAIT_MS} ms`));
      }, ANSWER_WAIT_MS);
      double.on("message", later);
      double.on("interactionResponse", later);
      check();
    });
  }

  it("GIVEN the README WHEN its slash spans are sorted THEN every one is an example, a template with a placeholder, a mention of a command, or not a command at all", () => {
    const kinds = spans.map((span) => classify(span, leaves, topNames));
    // The README really has examples to run, and the sorting leaves no span unexplained.
    expect(kinds.filter((k) => k === "example").length).toBeGreaterThan(40);
    for (const [i, span] of spans.entries()) {
      if (kinds[i] === "template") expect(span).toMatch(/…|<[^>]+>/);
      if (kinds[i] === "mention") expect(span).not.toMatch(/:/);
    }
  });

  it("GIVEN every command example in the README WHEN typed verbatim into the playground THEN each is read without an option error and the bot answers it with a message or a form", async () => {
    const failures: string[] = [];
    const refused: string[] = [];
    const examples = spans.flatMap((span) => {
      const kind = classify(span, leaves, topNames);
      const withIds = kind === "template" ? filled(span) : undefined;
      return kind === "example" ? [span] : withIds === undefined ? [] : [withIds];
    });
    // In README order, except that what removes state (the key, a rule) runs last: the examples
    // after it in the text would otherwise only learn that there is nothing to act on.
    const ordered = [
      ...examples.filter((span) => !REMOVES_STATE.test(span)),
      ...examples.filter((span) => REMOVES_STATE.test(span)),
    ];
    expect(ordered.length).toBeGreaterThan(40);
    for (const span of ordered) {
      const parsed = parseCommandLine(span, leaves, {
        users: pg.playground.double.users.map((u) => ({
          id: u.id,
          username: u.username,
          displayName: u.globalName ?? u.username,
        })),
        channels: pg.playground.double.guild.channels.map((c) => ({ id: c.id, name: c.name ?? "" })),
        roles: pg.playground.double.guild.roles.map((r) => ({ id: r.id, name: r.name })),
      });
      if (!parsed.ok) {
        failures.push(`${span}\n    the composer cannot read it: ${parsed.error}`);
        continue;
      }
      const problem = parsed.missing.length > 0 ? `missing ${parsed.missing.join(", ")}` : undefined;
      const invalid = problem ?? problemWith(parsed.leaf.options, parsed.values);
      if (invalid) {
        failures.push(`${span}\n    the composer refuses it: ${invalid}`);
        continue;
      }
      const answer = await send(parsed.leaf.path, parsed.values);
      if (!answer.ok || answer.interactionId === undefined) {
        failures.push(`${span}\n    the playground refused it: ${answer.error ?? "no interaction"}`);
        continue;
      }
      if (answer.type === 9) continue; // a form (modal), as /account link opens
      const text = await answerOf(answer.interactionId).then(textOf, (error: Error) => error.message);
      // An option the bot refuses renders as "`option`: what is wrong"; a crash as an error id.
      // alice is linked until the last examples unlink her: a "link first" would hide what the example does.
      const linkFirst = !/^\/account unlink/.test(span) && /Link your marketplace account first/.test(text);
      if (text === "" || /^`[a-z_]+`:/.test(text) || /error id/.test(text) || linkFirst) {
        failures.push(`${span}\n    the bot answered: ${text || "(nothing)"}`);
      } else if (/^❌/.test(text) && ON_THE_MARKET.test(span)) {
        // These name listings the sandbox starts with: a refusal means the README went stale.
        failures.push(`${span}\n    refused in a fresh sandbox: ${text.split("\n")[0]}`);
      } else if (/^❌/.test(text)) {
        refused.push(`${span}\n    ${text.split("\n")[0]}`);
      }
    }
    // Not failures (the bot understood and answered): these name the reader's own offers, orders,
    // trades or listings, which a fresh sandbox does not have. Said, not hidden.
    if (refused.length > 0) {
      process.stdout.write(
        `\nNOTICE: ${refused.length} README example(s) ran but were refused in a fresh sandbox:\n  ${refused.join("\n  ")}\n\n`,
      );
    }
    expect(failures, `README examples that do not run:\n  ${failures.join("\n  ")}`).toEqual([]);
    expect(pg.errorLogs()).toEqual([]);
  }, 240_000);
});

const REMOVES_STATE = /^\/(account unlink|watch remove|watch tier remove|watch disarm)\b/;
/** Examples on the market as the sandbox starts (not on the reader's own listings, orders or trades). */
const ON_THE_MARKET =
  /^\/(search|listing|history|stall|watchlist|buy|bid|offer make|buyorder matches|buyorder similar)\b/;

type Kind = "example" | "template" | "mention" | "not a command";

/**
 * A span is an example when it names a whole command and either gives options or needs none;
 * `/watch add … tier:tier 1` and `rule:<your rule>` are templates; `/buy` or `/buyorder` in prose
 * mention a command; `/healthz` is no command at all.
 */
function classify(span: string, leaves: readonly Leaf[], topNames: ReadonlySet<string>): Kind {
  const first = span.slice(1).split(/\s+/)[0] ?? "";
  if (!topNames.has(first)) return "not a command";
  if (/…|<[^>]+>/.test(span)) return "template";
  const found = commandOfLine(span, leaves);
  if (!found) return "mention";
  if (found.tail.trim() === "" && found.leaf.options.some((o) => o.required)) return "mention";
  if (found.tail.trim() !== "" && !found.tail.includes(":")) return "mention";
  return "example";
}
