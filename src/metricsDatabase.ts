// Metrics read from the database at scrape time, each bounded by a short timeout and shared by
// scrapes arriving together: whether the database answers, and the operator's inventory.
import { Gauge, type Registry } from "prom-client";
import type { Inventory } from "./db/repos/inventory.ts";
import type { Logger } from "./log.ts";
import { withTimeout } from "./util/timeout.ts";

export interface DatabaseMetrics {
  /** Read on every scrape: a trivial query; resolves when the database answers. */
  watchDatabase(ping: () => Promise<unknown>): void;
  /** Read at most every `inventoryReuseMs`: counts for the dashboard. */
  watchInventory(read: () => Promise<Inventory>): void;
}

export interface DatabaseMetricsOptions {
  readonly registry: Registry;
  readonly logger: Logger;
  readonly timeoutMs: number;
  readonly now: () => number;
  /** Counts over whole tables move slowly: one read serves the scrapes of this long. Default 30 s. */
  readonly inventoryReuseMs?: number;
}

/** A reader whose result is shared for `reuseMs` and which yields undefined on failure or timeout. */
function cached<T>(
  now: () => number,
  reuseMs: number,
  timeoutMs: number,
  onError: (err: unknown) => void,
): { set(read: () => Promise<T>): void; get(): Promise<T | undefined> } {
  let reader: (() => Promise<T>) | undefined;
  let last: { at: number; result: Promise<T | undefined> } | undefined;
  return {
    set(read) {
      reader = read;
      last = undefined;
    },
    get() {
      const read = reader;
      if (read === undefined) return Promise.resolve(undefined);
      if (last !== undefined && now() - last.at < reuseMs) return last.result;
      const result = withTimeout(read(), timeoutMs).catch((err: unknown) => {
        onError(err);
        return undefined;
      });
      last = { at: now(), result };
      return result;
    },
  };
}

export function registerDatabaseMetrics(options: DatabaseMetricsOptions): DatabaseMetrics {
  const { registry, now, timeoutMs } = options;
  const log = options.logger;
  const registers = [registry];
  let pingSet = false;
  const ping = cached<true>(now, 1_000, timeoutMs, (err) =>
    log.warn({ err }, "the database did not answer the metrics probe"),
  );
  const inventory = cached<Inventory>(now, options.inventoryReuseMs ?? 30_000, timeoutMs, (err) =>
    log.warn({ err }, "reading the inventory for metrics failed"),
  );

  new Gauge({
    name: "database_up",
    help: "1 when the database answered a trivial query within the probe's timeout at this scrape, else 0.",
    registers,
    async collect() {
      this.reset();
      if (!pingSet) return;
      this.set((await ping.get()) === true ? 1 : 0);
    },
  });

  const inventoryGauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: Gauge, i: Inventory) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const i = await inventory.get();
        this.reset();
        if (i !== undefined) fill(this, i);
      },
    });
  inventoryGauge(
    "watch_rules",
    "Enabled watch rules, by whether they are armed (snipe mode).",
    ["armed"],
    (g, i) => {
      g.set({ armed: "false" }, i.rules.enabled - i.rules.armed);
      g.set({ armed: "true" }, i.rules.armed);
    },
  );
  inventoryGauge(
    "users",
    "Users of the bot, by whether a marketplace account is linked.",
    ["linked"],
    (g, i) => {
      g.set({ linked: "true" }, i.linkedUsers);
      g.set({ linked: "false" }, i.users - i.linkedUsers);
    },
  );
  inventoryGauge(
    "automatic_actions_24h",
    "Automatic actions started in the last 24 hours (auto-buys of armed rules, auto-accepted sales, guard steps), by kind and outcome.",
    ["kind", "outcome"],
    (g, i) => {
      for (const a of i.automaticActions) g.set({ kind: a.kind, outcome: a.outcome }, a.count);
    },
  );
  inventoryGauge(
    "spend_committed_24h_dollars",
    "Money spent or held by purchases, bids and offers made in the last 24 hours, by status (pending, open, unknown, succeeded), in dollars.",
    ["status"],
    (g, i) => {
      // Cents to dollars once, for people; a day's sum stays far inside a double's exact range.
      for (const c of i.committedCents) g.set({ status: c.status }, Number(c.cents) / 100);
    },
  );

  return {
    watchDatabase(probe) {
      pingSet = true;
      ping.set(async () => {
        await probe();
        return true as const;
      });
    },
    watchInventory(read) {
      inventory.set(read);
    },
  };
}
