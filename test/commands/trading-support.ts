// Helpers for the trading command tests: what the user sees (text, buttons), what the sandbox saw
// (request counts by route), and the marketplace as a given user sees it (to check upstream state).
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketApi, type MarketClient } from "../../src/market/client.ts";
import { startQuietBot, type Bot, type BotUser, type StartBotOptions } from "../support/harness.ts";
import {
  isEphemeral,
  textOf,
  userAnswer,
  type InteractionHandle,
  type StoredMessage,
} from "../support/discord.ts";

export { isEphemeral, textOf };

/**
 * What the user ends up reading after an interaction: the reply, the edited deferral, the updated
 * source message, or a follow-up (errors after a deferred update arrive as follow-ups).
 */
export function answer(h: InteractionHandle, timeoutMs = 10_000): Promise<StoredMessage> {
  return userAnswer(h, timeoutMs);
}

interface ButtonLike {
  readonly type: number;
  readonly label?: string;
  readonly custom_id?: string;
  readonly disabled?: boolean;
  readonly components?: readonly ButtonLike[];
}

/** Every component with a custom id on a message, rows flattened. */
export function componentsOf(m: StoredMessage): { label: string; customId: string; type: number }[] {
  const out: { label: string; customId: string; type: number }[] = [];
  const walk = (nodes: readonly ButtonLike[]) => {
    for (const n of nodes) {
      if (n.custom_id !== undefined) out.push({ label: n.label ?? "", customId: n.custom_id, type: n.type });
      if (n.components) walk(n.components);
    }
  };
  walk(m.components as ButtonLike[]);
  return out;
}

/** The custom id of the button labelled `label` (exactly); throws listing what is there. */
export function buttonId(m: StoredMessage, label: string): string {
  const found = componentsOf(m).find((c) => c.label === label);
  if (!found) {
    throw new Error(
      `no button "${label}" on the message; it has: ${componentsOf(m)
        .map((c) => c.label)
        .join(", ")}`,
    );
  }
  return found.customId;
}

export function labels(m: StoredMessage): string[] {
  return componentsOf(m).map((c) => c.label);
}

/** Requests the sandbox answered on one route ("METHOD /template"). */
export function hits(bot: Bot, route: string): number {
  return bot.sandbox.control.stats().routes[route]?.total ?? 0;
}

/** All requests the sandbox answered (control calls are not counted). */
export function totalHits(bot: Bot): number {
  return bot.sandbox.control.stats().total;
}

/** Direct marketplace access as a demo user, to check what happened upstream. */
export interface MarketView {
  as(user: BotUser): MarketApi;
  close(): Promise<void>;
}

export function marketOf(bot: Bot): MarketView {
  const client: MarketClient = createMarketClient({
    baseUrl: bot.sandbox.baseUrl,
    logger: createLogger({ level: "silent" }),
  });
  return { as: (user) => client.forKey(user.demo.apiKey), close: () => client.close() };
}

export interface TradingSuite {
  readonly bot: Bot;
  readonly alice: BotUser;
  readonly bob: BotUser;
  readonly market: MarketView;
}

/**
 * The bot of a trading suite (call in beforeAll): the alert engine's background polling stopped,
 * so that the sandbox's request counts belong to the command under test alone, `link` users
 * linked, and direct marketplace access. Close it with `stopTradingBot` in afterAll.
 */
export async function startTradingBot(
  link: readonly (keyof Bot["users"])[],
  opts: StartBotOptions = {},
): Promise<TradingSuite> {
  const bot = await startQuietBot(link, opts);
  return { bot, ...bot.users, market: marketOf(bot) };
}

/** Closes what `startTradingBot` opened (either may be missing when beforeAll failed). */
export async function stopTradingBot(bot: Bot | undefined, market: MarketView | undefined): Promise<void> {
  await market?.close();
  await bot?.stop();
}
