// The host of the background parts: one leader lock for them all, each part started in the order
// given, told when this process is elected, and stopped together; then the after-stop steps run
// in order (work in flight finished, claims handed back) before the leader lock is let go.
import type { Logger } from "../log.ts";
import { createLeader, type Leader, type LeaderOptions } from "./leader.ts";

/** What a part registers with the host: a name and its lifecycle. */
export interface HostedPart {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  /** On election: a leader-only part looks at once (another process may have been leading). */
  elected?(): void;
}

export interface HostOptions {
  readonly logger: Logger;
  /** The leader lock's connection and timings (its onElected is the host's). */
  readonly leader: Omit<LeaderOptions, "onElected" | "logger">;
}

export interface Host {
  /** True while this process holds the leader lock (false before start and after stop). */
  leading(): boolean;
  /** Adds a part: started after those registered before it. */
  register(part: HostedPart): void;
  /** Adds a step run once every part has stopped (in the order added), before the lock is released. */
  afterStop(step: () => Promise<void>): void;
  start(): void;
  stop(): Promise<void>;
}

export function createHost(opts: HostOptions): Host {
  let leader: Leader | undefined;
  const parts: HostedPart[] = [];
  const after: (() => Promise<void>)[] = [];
  return {
    leading: () => leader?.isLeader() === true,
    register(part) {
      if (leader !== undefined) throw new Error(`part ${part.name} registered after the host started`);
      parts.push(part);
    },
    afterStop(step) {
      after.push(step);
    },
    start() {
      if (leader !== undefined) return;
      leader = createLeader({
        ...opts.leader,
        logger: opts.logger,
        onElected: () => {
          for (const part of parts) part.elected?.();
        },
      });
      leader.start();
      for (const part of parts) part.start();
    },
    async stop() {
      await Promise.all(parts.map((part) => part.stop()));
      for (const step of after) await step();
      await leader?.stop();
      leader = undefined;
    },
  };
}
