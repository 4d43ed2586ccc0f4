// Fuzz: a few hundred interactions with random option values for every option of every command,
// random and forged component ids, random form submissions and autocompletes, from a seeded
// generator (set FUZZ_SEED to replay another run). The bot must answer every one exactly once,
// in time, never crash or leave a promise unhandled, and keep serving afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandDefinition } from "../../src/discord/command.ts";
import { DEFAULT_IDS, type InteractionHandle, type NamedOptions } from "../support/discord.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { answer, buttonId, customId, isEphemeral, seededRandom, textOf, withDeadline } from "./support.ts";

const tally = reliabilityTally("fuzz", "Fuzz (item 6)", import.meta.url);

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_121);
const COUNTS = { command: 180, autocomplete: 30, component: 90, modal: 45 } as const;
/** Interactions dispatched together: real traffic arrives concurrently. */
const BATCH = 6;
/** A first answer (usually a deferral) must come within this, even on a loaded machine. */
const FIRST_RESPONSE_DEADLINE_MS = 10_000;
const DRAIN_DEADLINE_MS = 60_000;

// ---- the generator ----------------------------------------------------------------------------

const rand = seededRandom(SEED);
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
function pick<T>(xs: readonly T[]): T {
  if (xs.length === 0) throw new Error("pick from an empty list");
  return xs[int(0, xs.length - 1)] as T;
}

const POOLS = [
  "0123456789",
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  " .,;:|$%-+_/\\'\"`*~#@!?()[]{}<>=&^",
  "éßçñøΩЖ中文日本語한국어١٢٣٤",
  "🔥💎👍🏽👨‍👩‍👧🇺🇳",
  "\u200b\u200c\u200d\ufeff\u202e\u2066",
  "\n\t\r\u0000\u0007\u001b",
].map((p) => [...p]);
const FRAGMENTS = [
  "'; DROP TABLE users;--",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "@everyone",
  "@here",
  "${process.env}",
  "%s%n%x",
  "{{7*7}}",
  "1e999",
  "NaN",
  "-0",
  "0x10",
  "Infinity",
  "null",
  "<@284102390284013568>",
  "||spoiler||",
  "```",
  "9007199254740993",
  "12.50",
  "1|0, 2|9",
  "22:00-07:00",
];

function randomText(maxLen: number): string {
  const r = rand();
  const len = r < 0.08 ? 0 : r < 0.45 ? int(1, 8) : r < 0.85 ? int(9, 60) : int(61, maxLen);
  let out = "";
  while (out.length < len) out += rand() < 0.12 ? pick(FRAGMENTS) : pick(pick(POOLS));
  // Cut on a code point boundary so the text stays valid UTF-16.
  return [...out].slice(0, len).join("").slice(0, maxLen);
}

function randomNumericText(): string {
  const sign = rand() < 0.2 ? "-" : "";
  const digits = Array.from({ length: int(1, 25) }, () => String(int(0, 9))).join("");
  const decimals =
    rand() < 0.4 ? `.${Array.from({ length: int(0, 6) }, () => String(int(0, 9))).join("")}` : "";
  return `${sign}${rand() < 0.1 ? "$" : ""}${digits}${decimals}`;
}

const randomString = (maxLen = 1200) => (rand() < 0.3 ? randomNumericText() : randomText(maxLen));

function randomInteger(def: OptionDef): number {
  return pick([
    0,
    -1,
    1,
    int(-1000, 1000),
    2 ** 31,
    2 ** 53,
    -(2 ** 53),
    1e15,
    def.min_value ?? 0,
    def.max_value ?? 100,
    (def.max_value ?? 100) + 1,
    (def.min_value ?? 0) - 1,
  ]);
}

function randomNumber(): number {
  return pick([0, -0.1, 0.5, 1.0000001, 1e300, -1e300, 5e-324, rand() * 1000, -rand(), rand()]);
}

const SUBJECT_CHARS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"];
const randomSubject = () =>
  rand() < 0.5
    ? String(int(0, 1e9) * 10 ** int(0, 9))
    : Array.from({ length: int(0, 45) }, () => pick(SUBJECT_CHARS)).join("");

// ---- the command definitions, walked -------------------------------------------------------------

interface OptionDef {
  readonly name: string;
  readonly type: number;
  readonly required?: boolean;
  readonly autocomplete?: boolean;
  readonly choices?: readonly { value: string | number }[];
  readonly min_value?: number;
  readonly max_value?: number;
  readonly options?: readonly OptionDef[];
}

interface Leaf {
  readonly top: string;
  readonly subs: readonly string[];
  readonly options: readonly OptionDef[];
}

function leavesOf(definitions: readonly CommandDefinition[]): Leaf[] {
  const out: Leaf[] = [];
  const walk = (top: string, subs: string[], options: readonly OptionDef[]) => {
    const nested = options.filter((o) => o.type === 1 || o.type === 2);
    if (nested.length === 0) out.push({ top, subs, options });
    for (const o of nested) walk(top, [...subs, o.name], o.options ?? []);
  };
  for (const d of definitions) walk(d.name, [], (d.options ?? []) as readonly OptionDef[]);
  return out;
}

const CHANNELS = [DEFAULT_IDS.textChannel, DEFAULT_IDS.alertsChannel, DEFAULT_IDS.voiceChannel];

/** A value for one option: valid in type (the double insists), random in content. */
function namedValue(def: OptionDef): string | number | boolean | undefined {
  if (def.choices && def.choices.length > 0) return pick(def.choices).value;
  switch (def.type) {
    case 3:
      return randomString();
    case 4:
      return randomInteger(def);
    case 10:
      return randomNumber();
    case 5:
      return rand() < 0.5;
    case 7:
      return pick(CHANNELS);
    default:
      return undefined;
  }
}

/** A raw option as an out-of-date or hostile client could send it: any choice, any type. */
function rawValue(def: OptionDef): unknown {
  const r = rand();
  if (r < 0.1) return randomString(100);
  if (r < 0.15) return int(-5, 5);
  switch (def.type) {
    case 3:
      return def.choices && rand() < 0.5 ? pick(def.choices).value : randomString();
    case 4:
      return randomInteger(def);
    case 10:
      return randomNumber();
    case 5:
      return rand() < 0.5;
    default:
      return randomString(30);
  }
}

// ---- the run ----------------------------------------------------------------------------------------

interface Sent {
  readonly kind: "command" | "autocomplete" | "component" | "modal";
  readonly what: string;
  readonly handle: InteractionHandle;
}

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
  bot.double.interactionTokenTtlMs = FIRST_RESPONSE_DEADLINE_MS;
  process.on("unhandledRejection", onRejection);
});

afterAll(async () => {
  process.off("unhandledRejection", onRejection);
  await bot?.stop();
});

function someone(): { user: BotUser; dm: boolean } {
  const r = rand();
  return { user: r < 0.5 ? alice : bob, dm: r > 0.9 };
}

/** "watch add min_float": every option of every command that got a random value. */
const covered = new Set<string>();

/**
 * A command with random options. The first time each subcommand comes up (`everyOption`) all
 * its options get a value, so every option of every command is fuzzed at least once.
 */
function fuzzCommand(leaf: Leaf, everyOption: boolean): Sent {
  const { user, dm } = everyOption ? { user: rand() < 0.5 ? alice : bob, dm: false } : someone();
  const path = [leaf.top, ...leaf.subs].join(" ");
  if (!everyOption && rand() < 0.3) {
    // Raw options: choices and required options are not enforced, channels left out.
    const given = leaf.options.filter((o) => o.type !== 7 && (o.required ? rand() < 0.85 : rand() < 0.5));
    let options: Record<string, unknown>[] = given.map((o) => ({
      name: o.name,
      type: o.type,
      value: rawValue(o),
    }));
    for (const o of given) covered.add(`${path} ${o.name}`);
    for (const sub of [...leaf.subs].reverse()) options = [{ name: sub, type: 1, options }];
    const handle = bot.double.slash(user, leaf.top, options, { dm });
    return { kind: "command", what: `/${path} raw ${JSON.stringify(options).slice(0, 300)}`, handle };
  }
  const named: Record<string, string | number | boolean> = {};
  for (const o of leaf.options) {
    if (!everyOption && !o.required && rand() < 0.45) continue;
    if (o.type === 7 && dm) continue;
    const v = namedValue(o);
    if (v === undefined) continue;
    named[o.name] = v;
    covered.add(`${path} ${o.name}`);
  }
  const handle = bot.double.slash(user, path, named as NamedOptions, { dm });
  return { kind: "command", what: `/${path} ${JSON.stringify(named).slice(0, 300)}`, handle };
}

function fuzzAutocomplete(leaves: readonly Leaf[]): Sent {
  const candidates = leaves.flatMap((l) => l.options.filter((o) => o.autocomplete).map((o) => ({ l, o })));
  const { l, o } = pick(candidates);
  const { user } = someone();
  const value = randomString(100);
  const path = [l.top, ...l.subs].join(" ");
  const handle = bot.double.autocomplete(user, path, { [o.name]: value }, o.name);
  return { kind: "autocomplete", what: `/${path} ${o.name}=${JSON.stringify(value)}`, handle };
}

/** A custom id: random text, a forged well-formed id (any action, owner, expiry) or a truncated one. */
function fuzzId(actions: readonly string[], presser: BotUser): string {
  const r = rand();
  if (r < 0.25) return randomText(100) || "x";
  const owner = rand() < 0.8 ? presser : presser === alice ? bob : alice;
  const action = rand() < 0.85 ? pick(actions) : pick(["nope", "buy.nope", "a", "z-z.z"]);
  const expiry = pick([undefined, Date.now() - 60_000, Date.now() + 3_600_000]);
  const id = customId(action, randomSubject(), owner, expiry);
  return r < 0.4 ? id.slice(0, int(1, Math.max(1, id.length - 1))) : id;
}

function fuzzComponent(actions: readonly string[]): Sent {
  const { user, dm } = someone();
  const id = fuzzId(actions, user);
  const opts = dm ? { channelId: bot.double.openDm(user.id) } : {};
  if (rand() < 0.3) {
    const values = Array.from({ length: int(1, 3) }, () => randomString(100) || "1");
    const handle = bot.double.select(user, id, values, undefined, opts);
    return { kind: "component", what: `menu ${JSON.stringify(id)} ${JSON.stringify(values)}`, handle };
  }
  return {
    kind: "component",
    what: `button ${JSON.stringify(id)}`,
    handle: bot.double.button(user, id, undefined, opts),
  };
}

function fuzzModal(actions: readonly string[]): Sent {
  const { user, dm } = someone();
  const id = fuzzId(actions, user);
  const fields: Record<string, string> = {};
  for (const name of ["key", "max_price", "price", randomText(20) || "f"]) {
    if (rand() < 0.6) fields[name] = randomString(4000);
  }
  const handle = bot.double.modalSubmit(user, id, fields, { dm });
  return {
    kind: "modal",
    what: `form ${JSON.stringify(id)} ${JSON.stringify(fields).slice(0, 200)}`,
    handle,
  };
}

/** What must hold for every interaction once the bot is idle; returns the problems. */
function problemsOf(s: Sent): string[] {
  const { record } = s.handle;
  const problems: string[] = [];
  const first = record.responses[0];
  if (record.responses.length !== 1) problems.push(`${record.responses.length} accepted first responses`);
  if (record.rejectedCallbacks.length > 0)
    problems.push(`callbacks refused: ${JSON.stringify(record.rejectedCallbacks)}`);
  if (!first) return problems;
  if (first.elapsedMs > FIRST_RESPONSE_DEADLINE_MS)
    problems.push(`first response after ${first.elapsedMs} ms`);
  if (s.kind === "autocomplete" && first.type !== 8)
    problems.push(`autocomplete answered with type ${first.type}`);
  if (s.kind !== "autocomplete" && first.type === 8) problems.push("answered with choices");
  const original = record.originalMessageId ? bot.double.message(record.originalMessageId) : undefined;
  if (first.type === 5 && original?.loading && record.followUpIds.length === 0) {
    problems.push("left on “thinking…” forever");
  }
  return problems;
}

describe("fuzz", () => {
  it(`GIVEN ${COUNTS.command + COUNTS.autocomplete + COUNTS.component + COUNTS.modal} random interactions (seed ${SEED}) WHEN they arrive ${BATCH} at a time THEN each is answered exactly once and in time, nothing crashes, and the bot still answers afterwards`, async () => {
    const leaves = leavesOf(bot.app.registry.definitions);
    const componentActions = bot.app.registry.modules.flatMap((m) => Object.keys(m.components));
    const modalActions = bot.app.registry.modules.flatMap((m) => Object.keys(m.modals));
    const plan = [
      ...Array<"command">(COUNTS.command).fill("command"),
      ...Array<"autocomplete">(COUNTS.autocomplete).fill("autocomplete"),
      ...Array<"component">(COUNTS.component).fill("component"),
      ...Array<"modal">(COUNTS.modal).fill("modal"),
    ].sort(() => rand() - 0.5);

    const uncovered = [...leaves].sort(() => rand() - 0.5);
    const sent: Sent[] = [];
    for (let i = 0; i < plan.length; i += BATCH) {
      const batch = plan.slice(i, i + BATCH).map((kind) => {
        switch (kind) {
          case "command": {
            const next = uncovered.shift();
            return next ? fuzzCommand(next, true) : fuzzCommand(pick(leaves), false);
          }
          case "autocomplete":
            return fuzzAutocomplete(leaves);
          case "component":
            return fuzzComponent(componentActions);
          case "modal":
            return fuzzModal(modalActions);
        }
      });
      sent.push(...batch);
      await Promise.all(batch.map((s) => s.handle.firstResponse(FIRST_RESPONSE_DEADLINE_MS + 2_000)));
      await withDeadline(bot.app.router.drain(), DRAIN_DEADLINE_MS, "the batch to finish");
      // Random input may unlink an account: link again so later commands reach deeper code.
      for (const u of [alice, bob]) {
        const row = await bot.db.prisma.user.findFirst({ where: { discordId: u.id } });
        if (!row?.encryptedKey) await bot.link(u);
      }
    }

    const allOptions = leaves.flatMap((l) =>
      l.options.map((o) => `${[l.top, ...l.subs].join(" ")} ${o.name}`),
    );
    expect(
      allOptions.filter((o) => !covered.has(o)),
      "options that never got a random value",
    ).toEqual([]);
    const failures = sent
      .map((s) => ({ what: `${s.kind} ${s.what}`, problems: problemsOf(s) }))
      .filter((f) => f.problems.length > 0);
    expect(failures).toEqual([]);
    expect(rejections).toEqual([]);
    expect(bot.logs.filter((l) => l.msg === "router failed outside the error boundary")).toEqual([]);
    // Unknown failures: a handler or an autocomplete that broke on input instead of refusing it.
    const generic = bot.logs.filter(
      (l) =>
        l.msg === "interaction handler failed" ||
        l.msg === "autocomplete handler threw; answered with no choices",
    );
    expect(
      generic.map((l) => `${String(l.name)}: ${JSON.stringify(l.err).slice(0, 400)}`),
      "handlers that failed on input instead of refusing it",
    ).toEqual([]);
    expect(bot.errorLogs().map((l) => l.msg)).toEqual([]);
    expect(bot.double.isBotConnected()).toBe(true);

    // Still serving: /help, and a real purchase quote end to end.
    const help = await answer(bot.double.slash(alice, "help"));
    expect(textOf(help)).toContain("/buy");
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 4321 });
    const quote = await answer(bot.double.slash(alice, "buy", { listing: listing.id }));
    expect(isEphemeral(quote)).toBe(true);
    expect(textOf(quote)).toContain("$43.21");
    expect(buttonId(quote, "Confirm purchase")).toMatch(/^buy\.confirm:/);

    tally.add("fuzz interactions", sent.length);
    for (const s of sent) tally.add(`fuzz interactions: ${s.kind}`);
    // How deep the random input got: refused at the door, or served (with or without the marketplace).
    const ids = new Set(sent.map((s) => s.handle.id));
    for (const l of bot.logs) {
      if (l.msg === "interaction handled" && ids.has(String(l.interactionId))) {
        tally.add(`router outcome: ${String(l.outcome)}`);
      }
    }
    tally.set(
      "slowest first response (ms)",
      Math.round(Math.max(...sent.map((s) => s.handle.record.responses[0]?.elapsedMs ?? 0))),
    );
    tally.set("interactions without exactly one first response", failures.length);
    tally.set("unhandled rejections", rejections.length);
    tally.set("command options fuzzed (all of them)", allOptions.length);
    tally.note(`seed ${SEED}; replay with FUZZ_SEED=${SEED} npx vitest run test/reliability/fuzz.test.ts`);
  }, 600_000);
});
