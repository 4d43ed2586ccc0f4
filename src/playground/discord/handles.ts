// Waiting on the double: waitFor over the world's change signal, and the handle a test holds on one interaction.
import type { StoredMessage } from "./model.ts";
import type { InteractionState } from "./interactions.ts";
import type { InteractionRecord, InteractionResponse, World } from "./world.ts";

export const DEFAULT_WAIT_MS = 5000;

/** Resolves with the first truthy value of `probe`, re-checked after every change. */
export type WaitFor = <T>(
  probe: () => T | undefined | null | false,
  timeoutMs?: number,
  what?: string,
) => Promise<T>;

export interface InteractionHandle {
  readonly id: string;
  readonly token: string;
  /** The INTERACTION_CREATE `d` that was dispatched. */
  readonly payload: Record<string, unknown>;
  readonly record: InteractionRecord;
  /** The first accepted callback (reply, deferral, modal, choices), with ms since dispatch. */
  firstResponse(timeoutMs?: number): Promise<InteractionResponse>;
  /**
   * The message the user ends up seeing: the reply, the @original once a deferral was edited,
   * the updated source message for component updates, or the last follow-up if @original was deleted.
   */
  finalMessage(timeoutMs?: number): Promise<StoredMessage>;
  followUps(): StoredMessage[];
  /** Resolves with the first truthy value of `probe`, re-checked after every change. */
  waitFor<T>(
    probe: (state: InteractionState) => T | undefined | null | false,
    timeoutMs?: number,
  ): Promise<T>;
  /** Make the token refuse callbacks from now on (10062), as if 3 s had passed. */
  expire(): void;
}

export function waitOnWorld(world: World): WaitFor {
  return <T>(
    probe: () => T | undefined | null | false,
    timeoutMs = DEFAULT_WAIT_MS,
    what = "a condition",
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const first = probe();
      if (first) {
        resolve(first);
        return;
      }
      const timer = setTimeout(() => {
        unsubscribe();
        reject(
          new Error(
            `discord double: timed out after ${timeoutMs} ms waiting for ${what}${recentRequests(world)}`,
          ),
        );
      }, timeoutMs);
      const unsubscribe = world.onChange(() => {
        let value: T | undefined | null | false;
        try {
          value = probe();
        } catch (error) {
          clearTimeout(timer);
          unsubscribe();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (value) {
          clearTimeout(timer);
          unsubscribe();
          resolve(value);
        }
      });
    });
}

export function createHandle(world: World, record: InteractionRecord, waitFor: WaitFor): InteractionHandle {
  const state = (): InteractionState => ({
    record,
    responses: record.responses,
    original: live(record.originalMessageId ? world.messages.get(record.originalMessageId) : undefined),
    followUps: record.followUpIds
      .map((id) => world.messages.get(id))
      .filter((m): m is StoredMessage => m !== undefined && !m.deleted),
  });
  const label = record.commandPath ? `/${record.commandPath}` : `${record.kind} ${record.customId ?? ""}`;
  return {
    id: record.id,
    token: record.token,
    payload: record.payload,
    record,
    firstResponse(timeoutMs) {
      return waitFor(() => record.responses[0], timeoutMs, `the first response to ${label}`);
    },
    finalMessage(timeoutMs) {
      return waitFor(
        () => {
          const first = record.responses[0];
          if (!first) return undefined;
          if (first.type === 8 || first.type === 9) {
            throw new Error(
              `${label} was answered with ${first.type === 8 ? "choices" : "a modal"}, not a message`,
            );
          }
          const { original, followUps } = state();
          // @original deleted (e.g. a public "thinking…" replaced by a private answer): the last follow-up.
          if (record.originalMessageId !== undefined && original === undefined) return followUps.at(-1);
          if (!original) return undefined;
          if (first.type === 5) return original.loading ? undefined : original;
          if (first.type === 6) return (original.editedAt ?? 0) >= first.at ? original : undefined;
          return original;
        },
        timeoutMs,
        `the final message of ${label}`,
      );
    },
    followUps: () => [...state().followUps],
    waitFor(probe, timeoutMs) {
      return waitFor(() => probe(state()), timeoutMs, `a condition on ${label}`);
    },
    expire() {
      record.expiresAt = Date.now() - 1;
    },
  };
}

const live = (m: StoredMessage | undefined): StoredMessage | undefined => (m && !m.deleted ? m : undefined);

function recentRequests(world: World): string {
  const last = world.requests.slice(-8).map((r) => `  ${r.method} ${r.path} -> ${r.status}`);
  return last.length > 0 ? `\nlast requests to the double:\n${last.join("\n")}` : "";
}
