// Builds a market client for tests: silent logs, short retry delays, every call event recorded.
import { createLogger } from "../../../src/log.ts";
import { createMarketClient } from "../../../src/market/client.ts";
import type {
  MarketCallEvent,
  MarketClient,
  MarketClientOptions,
  MarketDroppedEvent,
} from "../../../src/market/client.ts";

export interface TestClient {
  client: MarketClient;
  events: MarketCallEvent[];
  /** Unreadable elements the client left out of answers, as reported to metrics. */
  dropped: MarketDroppedEvent[];
}

export function testClient(baseUrl: string, over: Partial<MarketClientOptions> = {}): TestClient {
  const events: MarketCallEvent[] = [];
  const dropped: MarketDroppedEvent[] = [];
  const client = createMarketClient({
    baseUrl,
    logger: createLogger({ level: "silent" }),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    metrics: { onCall: (event) => events.push(event), onDropped: (event) => dropped.push(event) },
    ...over,
  });
  return { client, events, dropped };
}

/** Awaits a promise that must reject, and returns the rejection for assertions. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
