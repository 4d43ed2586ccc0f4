// Prometheus metrics of one bot: a Registry per app (never prom-client's global one, so tests run several apps), fed by the market client, router and alert engine hooks and by probes read at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { AlertFailedEvent, AlertSentEvent, DeliveryMetrics } from "./outbox/delivery.ts";
import type { FeedCycleEvent, FeedMetrics, ListingsMatchedEvent } from "./watch/part.ts";
import type { OutboxDepth } from "./db/repos/outbox.ts";
import type { InteractionObservation, RouterMetrics } from "./discord/router.ts";
import type { Logger } from "./log.ts";
import type { DriftEvent, MarketCallEvent, MarketDroppedEvent, MarketMetrics } from "./market/client.ts";
import { registerDatabaseMetrics, type DatabaseMetrics } from "./metricsDatabase.ts";
import { withTimeout } from "./util/timeout.ts";

/** Where this process stands with the shared listing feed (only the leader replica runs it). */
export interface FeedHealth {
  /** "off": no feed reported yet (no alert engine in this process, or it has not ticked). */
  readonly role: "leader" | "follower" | "off";
  /** Leader only: time since the last successful cycle (or since election, before the first one). */
  readonly lagMs: number | undefined;
}

/** The one metrics object of an app: every hook interface the parts call, plus scrape-time probes. */
export interface Metrics extends MarketMetrics, RouterMetrics, DeliveryMetrics, FeedMetrics, DatabaseMetrics {
  /** This app's metrics (the process metrics are added at render time). */
  readonly registry: Registry;
  /** Read on every scrape: whether every gateway shard of this process is connected. */
  watchGateway(isUp: () => boolean): void;
  /** Read on every scrape (bounded by a short timeout): the delivery queue. */
  watchOutbox(read: () => Promise<OutboxDepth>): void;
  feedHealth(): FeedHealth;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  readonly logger: Logger;
  /** Longest wait for the outbox query on a scrape. Default 1000 ms. */
  readonly outboxTimeoutMs?: number;
  /** Process metrics (CPU, memory, event loop, GC). Default true. */
  readonly defaultMetrics?: boolean;
  readonly now?: () => number;
}

// Alerts should reach users in well under a few seconds; past 10 s only the count matters.
const ALERT_LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10];
// Discord drops an interaction that is not acknowledged within 3 s.
const ACK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 5];
// The market client's per-attempt timeout is 10 s.
const MARKET_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const OUTBOX_STATUSES = ["pending", "sending", "held", "failed"] as const;
/** Scrapes arriving together share one outbox query. */
const OUTBOX_READ_REUSE_MS = 1_000;

export function createMetrics(options: MetricsOptions): Metrics {
  const log = options.logger.child({ module: "metrics" });
  const now = options.now ?? Date.now;
  const outboxTimeoutMs = options.outboxTimeoutMs ?? 1_000;
  const registry = new Registry();
  const includeProcess = options.defaultMetrics ?? true;
  const registers = [registry];

  const alertsSent = new Counter({
    name: "alerts_sent_total",
    help: "Alerts delivered to Discord, by alert kind.",
    labelNames: ["kind"] as const,
    registers,
  });
  const alertLatency = new Histogram({
    name: "alert_latency_seconds",
    help: 'Time until an alert reached Discord: since="listed" from the listing\'s creation on the marketplace, since="queued" from detection (outbox row written). Digests are not observed.',
    labelNames: ["since"] as const,
    buckets: ALERT_LATENCY_BUCKETS,
    registers,
  });
  const marketCalls = new Counter({
    name: "market_calls_total",
    help: "Marketplace HTTP attempts by endpoint template and status (a number, timeout or network).",
    labelNames: ["endpoint", "status"] as const,
    registers,
  });
  const marketDuration = new Histogram({
    name: "market_call_duration_seconds",
    help: "Duration of one marketplace HTTP attempt (rate-limit wait excluded), by endpoint template.",
    labelNames: ["endpoint"] as const,
    buckets: MARKET_BUCKETS,
    registers,
  });
  const unreadable = new Counter({
    name: "market_unreadable_elements_total",
    help: "Elements of marketplace answers that could not be read and were left out (the rest was used), by endpoint template and element.",
    labelNames: ["endpoint", "what"] as const,
    registers,
  });
  // Alert rules key on these names and labels (kind: missing|type|unknown|unreadable|status).
  const contractDrift = new Gauge({
    name: "market_contract_drift",
    help: "1 while a marketplace answer differs from what the bot reads (by endpoint template, field path and kind: missing, type, unknown, unreadable, status), 0 once it is over.",
    labelNames: ["endpoint", "field", "kind"] as const,
    registers,
  });
  const contractDriftEvents = new Counter({
    name: "market_contract_drift_events_total",
    help: "Contract drifts first seen, by endpoint template, field path and kind.",
    labelNames: ["endpoint", "field", "kind"] as const,
    registers,
  });
  const rateLimitWait = new Counter({
    name: "market_rate_limit_wait_seconds_total",
    help: "Time calls waited for the marketplace rate-limit budget before being sent, by endpoint template.",
    labelNames: ["endpoint"] as const,
    registers,
  });
  const interactions = new Counter({
    name: "interactions_total",
    help: "Interactions handled, by kind and outcome.",
    labelNames: ["kind", "outcome"] as const,
    registers,
  });
  const interactionAck = new Histogram({
    name: "interaction_ack_seconds",
    help: "From Discord creating an interaction to the bot's first accepted callback (reply, deferral, modal, choices), by kind.",
    labelNames: ["kind"] as const,
    buckets: ACK_BUCKETS,
    registers,
  });

  let gatewayProbe: (() => boolean) | undefined;
  new Gauge({
    name: "discord_gateway_up",
    help: "1 when every gateway shard of this process is connected and ready, else 0.",
    registers,
    collect() {
      let up = false;
      try {
        up = gatewayProbe?.() ?? false;
      } catch (err) {
        log.warn({ err }, "gateway probe failed");
      }
      this.set(up ? 1 : 0);
    },
  });

  // Feed state pushed by the alert engine on every feed tick.
  let feedRole: FeedHealth["role"] = "off";
  let leaderSince = 0;
  let lastFeedSuccessAt: number | undefined;
  const feedHealth = (): FeedHealth => {
    if (feedRole !== "leader") return { role: feedRole, lagMs: undefined };
    return { role: "leader", lagMs: Math.max(0, now() - (lastFeedSuccessAt ?? leaderSince)) };
  };
  new Gauge({
    name: "feed_lag_seconds",
    help: "Leader only: seconds since the listing feed last completed a cycle successfully (0 on replicas that do not run the feed).",
    registers,
    collect() {
      this.set((feedHealth().lagMs ?? 0) / 1000);
    },
  });
  new Gauge({
    name: "feed_leader",
    help: "1 when this process holds the feed leadership and runs the shared pollers.",
    registers,
    collect() {
      this.set(feedRole === "leader" ? 1 : 0);
    },
  });
  const feedListings = new Counter({
    name: "feed_listings_total",
    help: "New listings the feed handed to the matcher.",
    registers,
  });
  const feedMatches = new Counter({
    name: "feed_matches_total",
    help: "Rule hits among new listings (divide by feed_cycles_total for matches per cycle).",
    registers,
  });
  const alertsQueued = new Counter({
    name: "alerts_queued_total",
    help: "Listing alerts written to the outbox by the feed.",
    registers,
  });
  const alertFailures = new Counter({
    name: "alert_send_failures_total",
    help: 'Sends that did not reach Discord, by target (dm or channel) and result: "retry" (tried again later) or "failed" (given up).',
    labelNames: ["target", "result"] as const,
    registers,
  });
  const feedCycles = new Counter({
    name: "feed_cycles_total",
    help: "Listing feed cycles run by this process, by result (ok or failed).",
    labelNames: ["result"] as const,
    registers,
  });

  let outboxReader: (() => Promise<OutboxDepth>) | undefined;
  let lastRead: { at: number; result: Promise<OutboxDepth | undefined> } | undefined;
  const readOutbox = (): Promise<OutboxDepth | undefined> => {
    const reader = outboxReader;
    if (reader === undefined) return Promise.resolve(undefined);
    if (lastRead !== undefined && now() - lastRead.at < OUTBOX_READ_REUSE_MS) return lastRead.result;
    const result = withTimeout(reader(), outboxTimeoutMs).catch((err: unknown) => {
      // A slow or broken database must not fail the whole scrape: the outbox series go missing instead.
      log.warn({ err }, "reading the outbox depth for metrics failed");
      return undefined;
    });
    lastRead = { at: now(), result };
    return result;
  };
  new Gauge({
    name: "outbox_depth",
    help: "Messages in the delivery outbox by status (pending, sending, held for quiet hours, failed), read from the database at scrape time.",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const depth = await readOutbox();
      this.reset();
      if (depth === undefined) return;
      for (const status of OUTBOX_STATUSES) this.set({ status }, depth[status]);
    },
  });
  new Gauge({
    name: "outbox_oldest_pending_seconds",
    help: "Age of the oldest message waiting to be sent (pending or sending): delivery lag, 0 when the queue is empty.",
    registers,
    async collect() {
      const depth = await readOutbox();
      this.reset();
      if (depth === undefined) return;
      const oldest = depth.oldestPendingAt;
      this.set(oldest === null ? 0 : Math.max(0, now() - oldest.getTime()) / 1000);
    },
  });

  const database = registerDatabaseMetrics({ registry, logger: log, timeoutMs: outboxTimeoutMs, now });

  return {
    registry,
    ...database,
    onCall(event: MarketCallEvent) {
      marketCalls.inc({ endpoint: event.endpoint, status: String(event.status) });
      marketDuration.observe({ endpoint: event.endpoint }, event.durationMs / 1000);
      if (event.rateLimitWaitMs > 0)
        rateLimitWait.inc({ endpoint: event.endpoint }, event.rateLimitWaitMs / 1000);
    },
    onDropped(event: MarketDroppedEvent) {
      unreadable.inc({ endpoint: event.endpoint, what: event.what }, event.count);
    },
    onDrift(event: DriftEvent) {
      const labels = { endpoint: event.endpoint, field: event.field, kind: event.kind };
      contractDrift.set(labels, event.active ? 1 : 0);
      if (event.active) contractDriftEvents.inc(labels);
    },
    observeInteraction(o: InteractionObservation) {
      interactions.inc({ kind: o.kind, outcome: o.outcome });
      if (o.firstResponseMs !== undefined) interactionAck.observe({ kind: o.kind }, o.firstResponseMs / 1000);
    },
    alertSent(event: AlertSentEvent) {
      alertsSent.inc({ kind: event.kind });
      // A digest is late on purpose (quiet hours): its age says nothing about the pipeline.
      if (event.kind === "digest") return;
      const t = now();
      alertLatency.observe({ since: "queued" }, Math.max(0, t - event.queuedAt.getTime()) / 1000);
      if (event.listedAt !== undefined) {
        alertLatency.observe({ since: "listed" }, Math.max(0, t - event.listedAt.getTime()) / 1000);
      }
    },
    alertFailed(event: AlertFailedEvent) {
      alertFailures.inc({ target: event.target, result: event.result });
    },
    listingsMatched(event: ListingsMatchedEvent) {
      feedListings.inc(event.listings);
      feedMatches.inc(event.matched);
      alertsQueued.inc(event.queued);
    },
    feedLeadership(leading: boolean) {
      if (leading && feedRole !== "leader") {
        leaderSince = now();
        lastFeedSuccessAt = undefined;
      }
      feedRole = leading ? "leader" : "follower";
    },
    feedCycle(event: FeedCycleEvent) {
      feedCycles.inc({ result: event.ok ? "ok" : "failed" });
      if (event.ok) lastFeedSuccessAt = now();
    },
    watchGateway(isUp) {
      gatewayProbe = isUp;
    },
    watchOutbox(read) {
      outboxReader = read;
      lastRead = undefined;
    },
    feedHealth,
    async render() {
      const source = includeProcess ? Registry.merge([registry, processRegistry()]) : registry;
      return { contentType: registry.contentType, body: await source.metrics() };
    },
  };
}

let sharedProcessRegistry: Registry | undefined;

/**
 * CPU, memory, event loop and GC belong to the process, not to an app: collected once per process
 * (their event-loop monitor and GC observer cannot be stopped, so one per app would pile up in tests).
 */
function processRegistry(): Registry {
  if (sharedProcessRegistry === undefined) {
    sharedProcessRegistry = new Registry();
    collectDefaultMetrics({ register: sharedProcessRegistry });
  }
  return sharedProcessRegistry;
}

/** One market hook feeding several sinks (the app's metrics and, in tests, an observer). */
export function fanOutMarketMetrics(...sinks: readonly (MarketMetrics | undefined)[]): MarketMetrics {
  const live = sinks.filter((s): s is MarketMetrics => s !== undefined);
  return {
    onCall: (event) => live.forEach((s) => s.onCall(event)),
    onDropped: (event) => live.forEach((s) => s.onDropped?.(event)),
    onDrift: (event) => live.forEach((s) => s.onDrift?.(event)),
  };
}

/** One router hook feeding several sinks (the app's metrics and, in tests, an observer). */
export function fanOutRouterMetrics(...sinks: readonly (RouterMetrics | undefined)[]): RouterMetrics {
  const live = sinks.filter((s): s is RouterMetrics => s !== undefined);
  return { observeInteraction: (o) => live.forEach((s) => s.observeInteraction(o)) };
}
