// Test helpers for the sandbox: a tiny JSON client over undici and a started sandbox per suite.
import { request } from "undici";
import { z } from "zod";
import { afterAll, beforeAll } from "vitest";
import { Trade } from "../../src/market/schemas.ts";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/index.ts";

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string | undefined; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers["authorization"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await request(`${base}${path}`, {
    method: method as "GET",
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(", ") : v;
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: flat, text, json };
}

/** Parses an answer body with a schema, failing the test with zod's message when it does not fit. */
export function parse<T extends z.ZodType>(schema: T, a: Answer): z.infer<T> {
  return schema.parse(a.json);
}

export const ErrorBodyStrict = z.object({ code: z.number().int(), message: z.string().min(1) });

/** Starts a sandbox for the enclosing suite; `api(method, path, opts)` calls it. */
export function useSandbox(opts: SandboxOptions = {}) {
  const ctx = {} as {
    sb: Sandbox;
    alice: string;
    bob: string;
    carol: string;
    aliceId: string;
    bobId: string;
    /** Calls the API; reads carry the operator key unless a key is given or `anonymous` is set. */
    api: (
      method: string,
      path: string,
      o?: Parameters<typeof call>[3] & { anonymous?: boolean },
    ) => Promise<Answer>;
    control: (method: string, path: string, body?: unknown) => Promise<Answer>;
  };
  beforeAll(async () => {
    ctx.sb = await startSandbox({ rateLimit: false, ...opts });
    const [a, b, c] = ctx.sb.users;
    if (!a || !b || !c) throw new Error("sandbox has fewer than 3 demo users");
    ctx.alice = a.apiKey;
    ctx.bob = b.apiKey;
    ctx.carol = c.apiKey;
    ctx.aliceId = a.platformId;
    ctx.bobId = b.platformId;
    // Like the live service, the sandbox refuses keyless reads: the operator's key stands in.
    ctx.api = (method, path, o = {}) => {
      const { anonymous, ...rest } = o;
      const key = anonymous ? undefined : (rest.key ?? ctx.sb.operatorKey);
      return call(ctx.sb.baseUrl, method, path, { ...rest, key });
    };
    ctx.control = (method, path, body) =>
      call(ctx.sb.controlUrl, method, path, body === undefined ? {} : { body });
  });
  afterAll(async () => {
    await ctx.sb?.close();
  });
  return ctx;
}

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), cursor: z.string().optional() });

/**
 * Buys listings as `key` and returns the buyer's trades of them, in the order asked. The live
 * answer names no trade (`{ message: "all listings purchased" }`): they are read from GET /me/trades.
 */
export async function buyAs(
  t: ReturnType<typeof useSandbox>,
  key: string,
  contractIds: readonly string[],
  totalPrice: number,
): Promise<Trade[]> {
  const res = await t.api("POST", "/listings/buy", {
    key,
    body: { contract_ids: contractIds, total_price: totalPrice },
  });
  if (res.status !== 200) throw new Error(`purchase refused: ${res.status} ${res.text}`);
  const mine = parse(
    z.object({ trades: z.array(Trade) }),
    await t.api("GET", "/me/trades?role=buyer&limit=100", { key }),
  );
  return contractIds.flatMap((id) => mine.trades.filter((tr) => tr.contract_id === id));
}
