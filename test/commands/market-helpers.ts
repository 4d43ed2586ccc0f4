// Reading what the market commands sent: buttons, select menus and listing ids of a stored message,
// plus direct reads of the sandbox (what the marketplace itself holds) for comparisons.
import { expect } from "vitest";
import type { StoredMessage } from "../support/discord.ts";
import type { Bot } from "../support/harness.ts";

export interface Component {
  readonly type: number;
  readonly custom_id?: string;
  readonly label?: string;
  readonly disabled?: boolean;
  readonly options?: readonly {
    readonly value: string;
    readonly label: string;
    readonly description?: string;
  }[];
  readonly components?: readonly Component[];
}

/** Every button and menu of a message, rows flattened. */
export function componentsOf(m: StoredMessage): Component[] {
  return (m.components as Component[]).flatMap((row) => row.components ?? []);
}

export function buttonLabels(m: StoredMessage): string[] {
  return componentsOf(m)
    .filter((c) => c.type === 2)
    .map((c) => c.label ?? "");
}

/** The button whose label contains `label`; fails the test when absent. */
export function button(m: StoredMessage, label: string): Component & { custom_id: string } {
  const found = componentsOf(m).find((c) => c.type === 2 && (c.label ?? "").includes(label));
  expect(found, `a "${label}" button on message ${m.id}`).toBeDefined();
  return found as Component & { custom_id: string };
}

/** The "open a listing" select menu; fails the test when absent. */
export function openMenu(m: StoredMessage): Component & { custom_id: string } {
  const found = componentsOf(m).find((c) => c.type === 3);
  expect(found, `a select menu on message ${m.id}`).toBeDefined();
  return found as Component & { custom_id: string };
}

/** Listing ids a list message offers to open, in display order. */
export function listedIds(m: StoredMessage): string[] {
  const menu = componentsOf(m).find((c) => c.type === 3);
  return (menu?.options ?? []).map((o) => o.value);
}

/** The action part of a custom id ("buy.start:123:456" -> "buy.start"). */
export function actionOf(customId: string): string {
  return customId.split(":")[0] ?? "";
}

export function sandboxTotal(bot: Bot): number {
  return bot.sandbox.control.stats().total;
}

export function routeHits(bot: Bot, route: string): number {
  return bot.sandbox.control.stats().routes[route]?.total ?? 0;
}

/** GET on the sandbox's marketplace API, as a client would (the operator's key by default). */
export async function marketGet<T>(bot: Bot, path: string, apiKey?: string): Promise<T> {
  const res = await fetch(`${bot.sandbox.baseUrl}${path}`, {
    headers: { Authorization: apiKey ?? bot.sandbox.operatorKey },
  });
  expect(res.status, `GET ${path}`).toBe(200);
  return (await res.json()) as T;
}

/** Background pollers quiet during these tests, so "no marketplace call" counts only our commands. */
export const QUIET_ENV = {
  POLL_INTERVAL_MS: "3600000",
  BID_POLL_INTERVAL_MS: "3600000",
  TRADE_POLL_INTERVAL_MS: "3600000",
} as const;
