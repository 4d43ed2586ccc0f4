// Test access to the local Discord double, plus helpers to run a bare discord.js client against it.
import { Client, GatewayIntentBits, Partials, Events } from "discord.js";
import type { DiscordDouble } from "../../src/playground/discord/index.ts";

export * from "../../src/playground/discord/index.ts";

/** Rejects with a clear message when `promise` does not settle within `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A real discord.js client logged in to the double; `destroy()` it in afterEach/afterAll. */
export async function connectClient(
  double: DiscordDouble,
  opts: { shardCount?: number } = {},
): Promise<Client<true>> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    rest: { api: double.apiUrl },
    ...(opts.shardCount ? { shardCount: opts.shardCount, shards: [...Array(opts.shardCount).keys()] } : {}),
  });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, (c) => resolve(c)));
  await withDeadline(client.login("test-token"), 5000, "discord.js login");
  return withDeadline(ready, 5000, "discord.js clientReady");
}
