// From marketplace answers to typed results or MarketErrors: caller input checked, bodies decoded
// strictly, HTTP failures mapped to an error kind, and transport causes scrubbed of the key.
import type { z } from "zod";
import { MarketError } from "./errors.ts";
import type { MarketErrorKind } from "./errors.ts";
import { readRateLimitHeaders } from "./rateLimit.ts";
import { ROUTES, endpointOf } from "./routes.ts";
import type { RouteName } from "./routes.ts";
import { ErrorBody } from "./schemas.ts";

/** What one attempt got back: status, headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  text: string;
}

const MAX_SERVICE_MESSAGE = 300;

/** Validates caller input before anything leaves; failures name the offending field. */
export function checked<S extends z.ZodType>(route: RouteName, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new MarketError({
    kind: "invalid_argument",
    endpoint: endpointOf(route),
    zodPath: issue?.path ?? [],
    detail: issue?.message,
  });
}

/** The answer's body as JSON, or undefined when it is not JSON (no JSON text parses to undefined). */
export function jsonBodyOf(res: RawResponse): unknown {
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    return undefined;
  }
}

/** `body`: the answer already parsed with jsonBodyOf, when the caller has it (one parse per answer). */
export function decodeStrict<S extends z.ZodType>(
  route: RouteName,
  res: RawResponse,
  schema: S,
  body: unknown = jsonBodyOf(res),
): z.output<S> {
  const endpoint = endpointOf(route);
  // A write that answered 2xx was applied even if we cannot read the answer.
  const mayHaveSucceeded = !ROUTES[route].idempotent;
  if (body === undefined) {
    throw new MarketError({
      kind: "invalid_response",
      endpoint,
      status: res.status,
      zodPath: [],
      mayHaveSucceeded,
      detail: res.text === "" ? "empty body" : "body is not JSON",
    });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new MarketError({
    kind: "invalid_response",
    endpoint,
    status: res.status,
    zodPath: issue?.path ?? [],
    mayHaveSucceeded,
    detail: issue?.message,
  });
}

export function httpError(route: RouteName, res: RawResponse, idempotent: boolean): MarketError {
  const endpoint = endpointOf(route);
  const { code, message } = parseErrorBody(res.text);
  const base = { endpoint, status: res.status, code, serviceMessage: message };
  const kind = errorKind(route, res.status, code);
  if (kind === "rate_limited") {
    const observed = readRateLimitHeaders(res.headers, res.status, Date.now());
    return new MarketError({ ...base, kind, retryAfterMs: observed.retryAfterMs });
  }
  // A gateway error on a write says nothing about whether the write landed.
  return new MarketError({ ...base, kind, mayHaveSucceeded: kind === "upstream" && !idempotent });
}

function errorKind(route: RouteName, status: number, code: number | undefined): MarketErrorKind {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "upstream";
  if (status === 400 && route === "createOffer" && code === 4) return "offers_disabled";
  // A refused purchase: 400 (spec), or 422 with code 6 (stale or sold) or 15 (price changed), as a
  // live-tested client's error constants say. Any 422 here is taken as a refusal: nothing was
  // bought either way, and the caller re-reads the listing to tell why.
  if (route === "buyListings" && (status === 400 || status === 422)) return "stale_purchase";
  if (status >= 400) return "bad_request";
  // 1xx/3xx (an unasked-for 304, a redirect): nothing we can read.
  return "invalid_response";
}

function parseErrorBody(text: string): { code: number | undefined; message: string | undefined } {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (!parsed.success) return { code: undefined, message: undefined };
    const message = parsed.data.message?.slice(0, MAX_SERVICE_MESSAGE);
    return { code: parsed.data.code, message };
  } catch {
    return { code: undefined, message: undefined };
  }
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return errorCode((error as { cause?: unknown }).cause);
}

/**
 * undici's errors are kept out of MarketError.cause: only their name, code and message travel,
 * with any occurrence of the key scrubbed, so no header or key can leak through a logged cause.
 */
export function sanitizeCause(error: unknown, key: string | undefined): Error {
  const name = error instanceof Error ? error.name : "Error";
  const code = errorCode(error);
  let message = error instanceof Error ? error.message : String(error);
  if (key !== undefined) message = message.split(key).join("[redacted]");
  const safe = new Error(code === undefined ? message : `${code}: ${message}`);
  safe.name = name;
  return safe;
}
