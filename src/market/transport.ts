// The marketplace transport: one keep-alive undici pool, one attempt under its timeout, rate-limit
// pacing and scheduler admission, and bounded retries with backoff. Sends paths; knows no shapes.
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import type { Logger } from "../log.ts";
import type { MarketCallEvent, MarketClientOptions } from "./api.ts";
import { backoffDelayMs } from "./backoff.ts";
import { errorCode, httpError, sanitizeCause } from "./errorMapping.ts";
import type { RawResponse } from "./errorMapping.ts";
import { MarketError } from "./errors.ts";
import { RateLimiter, readRateLimitHeaders } from "./rateLimit.ts";
import type { RateLimitState } from "./rateLimit.ts";
import { ROUTES, endpointOf } from "./routes.ts";
import type { HttpMethod, RouteName } from "./routes.ts";
import type { Priority } from "./scheduler.ts";

type QueryValue = string | number | boolean | readonly string[] | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

/** What a route method may add to a call: query parameters, a JSON body, a cached ETag. */
export interface CallOptions {
  query?: Query;
  body?: unknown;
  ifNoneMatch?: string;
}

/** Why an attempt produced no HTTP answer. */
class SendFailure extends Error {
  constructor(
    readonly kind: "timeout" | "network",
    /** False only when we know the request never left (refused connection, DNS failure). */
    readonly maybeSent: boolean,
    readonly safeCause: Error,
  ) {
    super(kind);
  }
}

/** Connection failures that happen before a single byte of the request was written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** How long one attempt waits for an answer unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

const DEFAULTS = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  connections: 8,
  userAgent: "market-alerts-bot/0.1",
  maxRateLimitWaitMs: 30_000,
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxTotalMs: 30_000,
} as const;

/** Header values may carry only visible ASCII; anything else would make undici throw mid-call. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export interface Transport {
  /**
   * Sends one logical call with pacing and retries. Returns 2xx answers (and 304 when asked
   * for); every other outcome becomes a MarketError.
   */
  run(
    key: string | undefined,
    fingerprint: string,
    priority: Priority,
    route: RouteName,
    path: string,
    opts?: CallOptions,
  ): Promise<RawResponse>;
  rateLimitState(fingerprint: string, endpoint: string): RateLimitState | undefined;
  close(): Promise<void>;
}

export function createTransport(options: MarketClientOptions, log: Logger): Transport {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const userAgent = options.userAgent ?? DEFAULTS.userAgent;
  const retry = {
    attempts: Math.max(1, options.retry?.attempts ?? DEFAULTS.attempts),
    baseDelayMs: options.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
    maxDelayMs: options.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
    maxTotalMs: options.retry?.maxTotalMs ?? DEFAULTS.maxTotalMs,
  };
  const pool = new Pool(base.origin, {
    connections: options.connections ?? DEFAULTS.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    // Backstops only: the per-attempt abort below fires first and is what callers see.
    headersTimeout: timeoutMs + 1_000,
    bodyTimeout: timeoutMs + 1_000,
    maxResponseSize: 16 * 1024 * 1024,
  });
  const limiter = new RateLimiter({ maxWaitMs: options.maxRateLimitWaitMs ?? DEFAULTS.maxRateLimitWaitMs });
  let closed = false;

  function report(event: MarketCallEvent): void {
    if (options.metrics === undefined) return;
    try {
      options.metrics.onCall(event);
    } catch (error) {
      // A broken metrics sink must not turn a good answer into a failure.
      log.warn({ err: error, endpoint: event.endpoint }, "market metrics hook threw");
    }
  }

  async function sendOnce(
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    key: string | undefined,
  ): Promise<RawResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await pool.request({
        method,
        path,
        headers,
        body: body ?? null,
        signal: controller.signal,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      const safe = sanitizeCause(error, key);
      if (controller.signal.aborted) throw new SendFailure("timeout", true, safe);
      throw new SendFailure("network", !NOT_SENT_CODES.has(errorCode(error) ?? ""), safe);
    } finally {
      clearTimeout(timer);
    }
  }

  async function run(
    key: string | undefined,
    fingerprint: string,
    priority: Priority,
    route: RouteName,
    path: string,
    opts: CallOptions = {},
  ): Promise<RawResponse> {
    const def = ROUTES[route];
    const endpoint = endpointOf(route);
    if (closed) throw new MarketError({ kind: "network", endpoint, detail: "client closed" });
    if (def.auth && key === undefined) {
      throw new MarketError({ kind: "unauthorized", endpoint, detail: "no API key linked" });
    }
    if (key !== undefined && !HEADER_SAFE.test(key)) {
      throw new MarketError({
        kind: "unauthorized",
        endpoint,
        detail: "API key has characters a header cannot carry",
      });
    }
    const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
    if (key !== undefined) headers["authorization"] = key;
    if (opts.ifNoneMatch !== undefined) headers["if-none-match"] = opts.ifNoneMatch;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const fullPath = `${prefix}${path}${toQueryString(opts.query)}`;
    const started = performance.now();

    for (let attempt = 1; ; attempt += 1) {
      const permit = await limiter.acquire(fingerprint, endpoint);
      // The key's budget is reserved; now the address's, in priority order.
      if (options.scheduler) {
        try {
          await options.scheduler.admit(priority);
        } catch (error) {
          permit.release();
          throw error;
        }
      }
      const t0 = performance.now();
      let res: RawResponse;
      try {
        res = await sendOnce(def.method, fullPath, headers, body, key);
      } catch (error) {
        permit.release();
        if (!(error instanceof SendFailure)) throw error;
        const durationMs = performance.now() - t0;
        report({ endpoint, status: error.kind, durationMs, rateLimitWaitMs: permit.waitedMs, attempt });
        const delay = def.idempotent ? retryDelay(attempt, started) : undefined;
        if (delay !== undefined) {
          // Debug: the caller logs the outcome once (a failed feed cycle is one line).
          log.debug(
            { endpoint, attempt, delayMs: delay, reason: error.kind },
            "market read failed, retrying",
          );
          await sleep(delay);
          continue;
        }
        throw new MarketError({
          kind: error.kind,
          endpoint,
          mayHaveSucceeded: !def.idempotent && error.maybeSent,
          detail: error.kind === "timeout" ? `no answer within ${timeoutMs} ms` : undefined,
          cause: error.safeCause,
        });
      }
      const durationMs = performance.now() - t0;
      const observed = readRateLimitHeaders(res.headers, res.status, Date.now());
      permit.release(observed);
      if (res.status === 429) {
        // Headers saying the key had nothing left: its own limit, not the address's.
        options.scheduler?.refused(fingerprint, observed.retryAfterMs, {
          keyExhausted: observed.remaining === 0,
        });
      }
      report({ endpoint, status: res.status, durationMs, rateLimitWaitMs: permit.waitedMs, attempt });
      log.debug({ endpoint, status: res.status, durationMs: Math.round(durationMs), attempt }, "market call");

      if ((res.status >= 200 && res.status < 300) || (res.status === 304 && opts.ifNoneMatch !== undefined)) {
        return res;
      }
      if (res.status === 429 && attempt < retry.attempts) {
        // Not processed, so even writes may go again; the limiter now holds the wait.
        log.warn({ endpoint, attempt }, "market call rate limited, waiting for the reset");
        continue;
      }
      if (res.status >= 500 && def.idempotent) {
        const delay = retryDelay(attempt, started);
        if (delay !== undefined) {
          log.debug(
            { endpoint, attempt, delayMs: delay, status: res.status },
            "market read failed, retrying",
          );
          await sleep(delay);
          continue;
        }
      }
      throw httpError(route, res, def.idempotent);
    }
  }

  function retryDelay(attempt: number, started: number): number | undefined {
    if (attempt >= retry.attempts) return undefined;
    const delay = backoffDelayMs(attempt - 1, retry);
    return performance.now() - started + delay > retry.maxTotalMs ? undefined : delay;
  }

  return {
    run,
    rateLimitState: (fingerprint, endpoint) => limiter.state(fingerprint, endpoint),
    close: async () => {
      closed = true;
      await pool.close();
    },
  };
}

function toQueryString(query: Query | undefined): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
