// Test access to the local Discord double, plus helpers to run a bare discord.js client against it.
import { Client, GatewayIntentBits, Partials, Events } from "discord.js";
import type { DiscordDouble, InteractionHandle, StoredMessage } from "../../src/playground/discord/index.ts";

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

/**
 * The message the user ends up reading: the last follow-up (refusals after a deferred update or a
 * public deferral arrive that way), else the reply or the edited deferral. Throws when the
 * interaction was answered with a form or with autocomplete choices instead.
 */
export function userAnswer(h: InteractionHandle, timeoutMs: number): Promise<StoredMessage> {
  return h.waitFor((s) => {
    const first = s.responses[0];
    if (!first) return undefined;
    if (first.type === 8 || first.type === 9) {
      throw new Error(`answered with ${first.type === 9 ? "a form" : "choices"}, not a message`);
    }
    const last = s.followUps.at(-1);
    if (last) return last;
    if (!s.original) return undefined;
    if (first.type === 5) return s.original.loading ? undefined : s.original;
    if (first.type === 6) return (s.original.editedAt ?? 0) >= first.at ? s.original : undefined;
    return s.original;
  }, timeoutMs);
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
