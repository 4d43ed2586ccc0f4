// What every part of the alert engine is given: its logger, its clock, whether this process leads
// (leader-only loops idle cheaply on followers), and a way to wake delivery after writing to the outbox.
import type { Logger } from "../log.ts";

export interface PartContext {
  readonly log: Logger;
  readonly now: () => Date;
  /** True while this process holds the leader lock. */
  readonly leading: () => boolean;
  /** Wakes the delivery loop at once (a local outbox write). */
  readonly kickDelivery: () => void;
}

/** A pass that runs only while this process leads. */
export function whileLeading(
  ctx: Pick<PartContext, "leading">,
  fn: () => Promise<unknown>,
): () => Promise<void> {
  return async () => {
    if (ctx.leading()) await fn();
  };
}
