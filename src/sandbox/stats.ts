// Request counts by method + route template and status, for benchmarks and tests of client behaviour.

export interface RouteStats {
  total: number;
  byStatus: Record<string, number>;
}

export interface Stats {
  total: number;
  routes: Record<string, RouteStats>;
}

/** A write request (any method but GET) as it reached the sandbox, before any injected latency. */
export interface WriteRecord {
  /** When it arrived (ms since epoch, the real clock): the moment the client sent it. */
  readonly arrivedAt: number;
  /** e.g. "PATCH /buy-orders/{order_id}". */
  readonly route: string;
  readonly path: string;
  /** The key it was sent with, if any. */
  readonly key: string | undefined;
  readonly body: unknown;
}

/** Told of each answered request as it is answered: its method and route template, and status. */
export type AnswerListener = (route: string, status: number) => void;

export class StatsBook {
  private total = 0;
  private routes = new Map<string, RouteStats>();
  private readonly listeners = new Set<AnswerListener>();
  private written: WriteRecord[] = [];

  /** Returns the call that stops the listener. */
  onAnswer(listener: AnswerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(route: string, status: number): void {
    for (const listener of this.listeners) listener(route, status);
    this.total += 1;
    let r = this.routes.get(route);
    if (!r) {
      r = { total: 0, byStatus: {} };
      this.routes.set(route, r);
    }
    r.total += 1;
    const key = String(status);
    r.byStatus[key] = (r.byStatus[key] ?? 0) + 1;
  }

  /** Keeps a write as it arrived, so tests can hold what was sent against what the user had confirmed. */
  noteWrite(write: WriteRecord): void {
    this.written.push(write);
  }

  /** Every write since the last reset, in order of arrival. */
  writes(): readonly WriteRecord[] {
    return [...this.written];
  }

  snapshot(): Stats {
    const routes: Record<string, RouteStats> = {};
    for (const [k, v] of this.routes) routes[k] = { total: v.total, byStatus: { ...v.byStatus } };
    return { total: this.total, routes };
  }

  reset(): void {
    this.total = 0;
    this.routes = new Map();
    this.written = [];
  }
}
