// The market client's side of the contract watch: every decoded answer compared with what the bot
// reads, statuses and reset headers observed, and the money hold checked before anything spends.
import type { Logger } from "../../log.ts";
import type { MarketMetrics } from "../api.ts";
import { MarketError } from "../errors.ts";
import type { RawResponse } from "../errorMapping.ts";
import { endpointOf } from "../routes.ts";
import type { RouteName } from "../routes.ts";
import type { DroppedElement } from "../schemas.ts";
import { createContractDrift } from "./drift.ts";
import type { ContractDrift } from "./drift.ts";
import { inspectBody } from "./inspect.ts";
import { EXPECTED_RESET_UNIT, headerValue, inferResetUnit } from "./resetUnit.ts";
import { contractOf } from "./rules.ts";
import type { MoneyAction } from "./rules.ts";

export interface ContractWatch {
  readonly drift: ContractDrift;
  /** The transport's hook, wrapped: statuses feed the watch (a route gone shows as 404) first. */
  readonly metrics: MarketMetrics;
  /**
   * Compares one answer with the route's contract: a walk over the body the client parsed
   * (`body`, undefined when it is not JSON), a small price for hearing about a renamed field the
   * day it happens.
   */
  answer(route: RouteName, res: RawResponse, body: unknown, sample: { broad?: boolean }): void;
  /** The elements a tolerant list left out of that answer (none ends an unreadable drift). */
  dropped(route: RouteName, dropped: readonly DroppedElement[]): void;
  /** Throws contract_drift, before anything is sent, while an amount this action spends from may have changed meaning. */
  holdMoney(action: MoneyAction, route: RouteName): void;
}

export function createContractWatch(logger: Logger, metrics: MarketMetrics | undefined): ContractWatch {
  const drift = createContractDrift({ logger, onEvent: (event) => metrics?.onDrift?.(event) });
  return {
    drift,
    metrics: {
      onCall(event) {
        if (typeof event.status === "number") drift.observeStatus(event.endpoint, event.status);
        metrics?.onCall(event);
      },
    },
    answer(route, res, body, sample) {
      const endpoint = endpointOf(route);
      const unit = inferResetUnit(headerValue(res.headers["x-ratelimit-reset"]));
      drift.observeHeader(
        endpoint,
        unit === undefined || unit === EXPECTED_RESET_UNIT
          ? undefined
          : { kind: "type", field: "header:x-ratelimit-reset", expected: EXPECTED_RESET_UNIT, seen: unit },
      );
      const contract = contractOf(route);
      if (contract === undefined) return;
      if (body !== undefined) drift.observe(endpoint, inspectBody(contract, body, sample));
    },
    dropped(route, dropped) {
      drift.observeUnreadable(
        endpointOf(route),
        dropped.map((d) => `${d.what}: ${d.path}`),
      );
    },
    holdMoney(action, route) {
      // A map lookup in memory: the buy path never waits on the watch.
      const held = drift.moneyHold(action);
      if (held === undefined) return;
      throw new MarketError({
        kind: "contract_drift",
        endpoint: endpointOf(route),
        detail: `held by drift on ${held.endpoint} ${held.field} (${held.kind})`,
      });
    },
  };
}
