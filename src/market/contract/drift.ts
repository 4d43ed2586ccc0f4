// The run-time contract watch: drift seen in live answers, per endpoint and field, kept while it
// lasts. Each new drift is logged once with an anonymised example and counted; metrics follow the
// active set; /healthz reads the summary; money actions read the hold (a map lookup, no request).
import type { Logger } from "../../log.ts";
import type { Endpoint } from "../routes.ts";
import type { DriftFinding, DriftKind, Inspection } from "./inspect.ts";
import type { MoneyAction } from "./rules.ts";

export interface DriftEvent {
  readonly endpoint: Endpoint;
  readonly field: string;
  readonly kind: DriftKind;
  /** True when the drift is first seen, false when it is over. */
  readonly active: boolean;
}

export interface ActiveDrift extends DriftFinding {
  readonly endpoint: Endpoint;
  /** Epoch ms when first seen. */
  readonly since: number;
}

export interface ContractDrift {
  /** One inspected answer of an endpoint: new findings start, checked fields without one end. */
  observe(endpoint: Endpoint, inspection: Inspection): void;
  /** Elements a tolerant list left out of one answer (field paths), or none. */
  observeUnreadable(endpoint: Endpoint, paths: readonly string[]): void;
  /** Every answer's status: a route that stops existing shows as 404/405 where 2xx was usual. */
  observeStatus(endpoint: Endpoint, status: number): void;
  /** Drift on the rate-limit reset header's unit (undefined: as expected). */
  observeHeader(endpoint: Endpoint, finding: DriftFinding | undefined): void;
  active(): readonly ActiveDrift[];
  /** The drift on an amount this action spends from, if any: the action must refuse while it lasts. */
  moneyHold(action: MoneyAction): ActiveDrift | undefined;
  /** "contract drift on GET /listings data[].price (type), …", or undefined when the contract holds. */
  summary(): string | undefined;
}

/** Statuses that say a route without path ids is gone (a 404 on /listings/{id} only means sold). */
const GONE = new Set([404, 405, 410]);
const STATUS_FIELD = "(status)";

export function createContractDrift(opts: {
  logger: Logger;
  onEvent?: (event: DriftEvent) => void;
  now?: () => number;
}): ContractDrift {
  const log = opts.logger.child({ module: "contract" });
  const now = opts.now ?? Date.now;
  const byKey = new Map<string, ActiveDrift>();
  const holds = new Map<MoneyAction, ActiveDrift>();

  const keyOf = (endpoint: string, field: string, kind: DriftKind) => `${endpoint} ${field} ${kind}`;

  function emit(event: DriftEvent): void {
    try {
      opts.onEvent?.(event);
    } catch (err) {
      log.warn({ err, endpoint: event.endpoint }, "contract drift hook threw");
    }
  }

  function start(endpoint: Endpoint, finding: DriftFinding): void {
    const key = keyOf(endpoint, finding.field, finding.kind);
    if (byKey.has(key)) return;
    const drift: ActiveDrift = { ...finding, endpoint, since: now() };
    byKey.set(key, drift);
    const level = finding.kind === "unknown" ? "info" : "warn";
    log[level](
      { endpoint, field: finding.field, kind: finding.kind, expected: finding.expected, seen: finding.seen },
      "marketplace contract drift: the live answer no longer matches what the bot reads",
    );
    emit({ endpoint, field: finding.field, kind: finding.kind, active: true });
    if (finding.money !== undefined && finding.kind !== "unknown") {
      for (const action of finding.money) if (!holds.has(action)) holds.set(action, drift);
    }
  }

  function end(key: string): void {
    const drift = byKey.get(key);
    if (drift === undefined) return;
    byKey.delete(key);
    log.info(
      { endpoint: drift.endpoint, field: drift.field, kind: drift.kind },
      "marketplace contract drift over",
    );
    emit({ endpoint: drift.endpoint, field: drift.field, kind: drift.kind, active: false });
    for (const [action, held] of holds) {
      if (held !== drift) continue;
      holds.delete(action);
      // Another drift on an amount of the same action keeps the hold.
      const other = [...byKey.values()].find((d) => d.kind !== "unknown" && d.money?.includes(action));
      if (other !== undefined) holds.set(action, other);
    }
  }

  function endWhere(endpoint: Endpoint, test: (d: ActiveDrift) => boolean): void {
    for (const [key, drift] of [...byKey]) if (drift.endpoint === endpoint && test(drift)) end(key);
  }

  return {
    observe(endpoint, inspection) {
      const seen = new Set(inspection.findings.map((f) => keyOf(endpoint, f.field, f.kind)));
      endWhere(endpoint, (d) => {
        if (d.kind === "unreadable" || d.kind === "status" || d.field.startsWith("header:")) return false;
        if (seen.has(keyOf(endpoint, d.field, d.kind))) return false;
        // An unknown field is over once its object was seen without it; the others once their field was checked.
        const where = d.kind === "unknown" ? parentOf(d.field) : d.field;
        return inspection.checked.has(where);
      });
      for (const finding of inspection.findings) start(endpoint, finding);
      // An answer was read: the route is there.
      endWhere(endpoint, (d) => d.kind === "status");
    },
    observeUnreadable(endpoint, paths) {
      const seen = new Set(paths);
      endWhere(endpoint, (d) => d.kind === "unreadable" && !seen.has(d.field));
      for (const field of seen)
        start(endpoint, { kind: "unreadable", field, expected: "a readable element" });
    },
    observeStatus(endpoint, status) {
      const hasIds = endpoint.includes("{");
      if (GONE.has(status) && !hasIds) {
        start(endpoint, { kind: "status", field: STATUS_FIELD, expected: "2xx", seen: `status ${status}` });
      } else if (status >= 200 && status < 300) {
        endWhere(endpoint, (d) => d.kind === "status");
      }
    },
    observeHeader(endpoint, finding) {
      if (finding !== undefined) start(endpoint, finding);
      else endWhere(endpoint, (d) => d.field.startsWith("header:"));
    },
    active: () => [...byKey.values()],
    moneyHold: (action) => holds.get(action),
    summary() {
      // Unknown fields and odd elements read around are metrics and logs, not a degraded service.
      const serious = [...byKey.values()].filter((d) => d.kind !== "unknown" && d.kind !== "unreadable");
      if (serious.length === 0) return undefined;
      const shown = serious.slice(0, 5).map((d) => `${d.endpoint} ${d.field} (${d.kind})`);
      const more = serious.length > shown.length ? ` and ${serious.length - shown.length} more` : "";
      return `contract drift on ${shown.join(", ")}${more}`;
    },
  };
}

function parentOf(field: string): string {
  const i = field.lastIndexOf(".");
  return i < 0 ? "(root)" : field.slice(0, i);
}
