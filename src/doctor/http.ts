// One read by the doctor: the request as the bot sends it (the key itself in Authorization), and
// the service's own pacing obeyed: a 429 is waited out (Retry-After) and tried again, a few times.
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { headerValue } from "../market/contract/resetUnit.ts";

export interface Sent {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** Of the last attempt. */
  readonly latencyMs: number;
  /** Time spent waiting out 429s before it. */
  readonly waitedMs: number;
}

export type SendFailure = { readonly failed: "timeout" | "network"; readonly latencyMs: number };

/** Longest single wait for a rate limit; beyond it the 429 is reported as it is. */
const MAX_WAIT_MS = 60_000;
const ATTEMPTS = 3;

export async function send(
  url: URL,
  init: { method: string; key: string; body?: unknown; timeoutMs: number },
): Promise<Sent | SendFailure> {
  let waitedMs = 0;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    try {
      const res = await request(url, {
        method: init.method as "GET" | "POST",
        headers: {
          authorization: init.key,
          accept: "application/json",
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: init.body === undefined ? null : JSON.stringify(init.body),
        signal: AbortSignal.timeout(init.timeoutMs),
      });
      const text = await res.body.text();
      const latencyMs = Math.round(performance.now() - started);
      const waitMs = res.statusCode === 429 ? retryAfterMs(res.headers) : undefined;
      if (waitMs !== undefined && waitMs <= MAX_WAIT_MS && attempt < ATTEMPTS) {
        await sleep(waitMs);
        waitedMs += waitMs;
        continue;
      }
      return { status: res.statusCode, headers: res.headers, text, latencyMs, waitedMs };
    } catch (error) {
      const timedOut =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return { failed: timedOut ? "timeout" : "network", latencyMs: Math.round(performance.now() - started) };
    }
  }
}

function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const text = headerValue(headers["retry-after"])?.trim();
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Math.ceil(Number(text) * 1000);
}
