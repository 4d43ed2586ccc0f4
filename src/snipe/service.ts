// Snipe mode as one service for /watch arm, /watch disarm, the Disarm button and /watch list: the
// arming verbs (arming.ts) bound to the database and the clock, the live arm's confirmation kept
// as a draft (taken once), and every arm or disarm published to the rule-change hub so this
// process's matcher buys (or stops buying) from the next listing on. Built once by src/services.ts.
import { z } from "zod";
import { getUserByDiscordId } from "../db/repos/users.ts";
import type { DraftService } from "../drafts/service.ts";
import { UserFacingError } from "../errors.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { FeeModel } from "../market/fees.ts";
import type { RuleChange } from "../watch/rules.ts";
import {
  armLive,
  armShadow,
  disarm,
  disarmById,
  quoteLiveArm,
  shadowReport,
  type ArmingDeps,
  type ArmTarget,
  type LiveArmQuote,
  type ShadowReport,
} from "./arming.ts";

/** The kind live-arm confirmations are stored under (the Arm button's action when they began). */
export const ARM_DRAFT_KIND = "watch.arm";

const ArmDraft = z.object({
  ruleId: z.number().int(),
  maxBuys: z.number().int(),
  filtersHash: z.string(),
  ceilingCents: z.number().int().positive(),
  budgetCents: z.number().int().positive(),
  linkGeneration: z.number().int(),
});

type Armed = ArmTarget & { maxBuys: number };

export interface ArmingService {
  /** Arms at once: shadow mode never spends. */
  armShadow(input: { discordId: string; rule: string; maxBuys: number }, log: Logger): Promise<Armed>;
  /** What arming live would mean, kept as a confirmation (`draftId`) the Arm button confirms once. */
  quoteLive(
    input: { discordId: string; rule: string; maxBuys: number; ttlMs: number },
    log: Logger,
  ): Promise<{ quote: LiveArmQuote; draftId: string }>;
  /** The Arm button: takes the confirmation once and arms exactly what it showed. */
  confirmLive(input: { discordId: string; draftId: string }, log: Logger): Promise<Armed>;
  /** The Cancel button: the confirmation goes (the token is unguessable, the button its owner's). */
  cancelLive(draftId: string): Promise<void>;
  /** By name or number, or "all": the names disarmed. */
  disarm(input: { discordId: string; rule: string }, log: Logger): Promise<string[]>;
  /** The Disarm button on an outcome DM: only the presser's own rule. */
  disarmById(input: { discordId: string; ruleId: number }, log: Logger): Promise<string[]>;
  /** What a shadow rule would have done since it was armed. */
  shadowReport(input: { ruleId: number; since: Date }): Promise<ShadowReport>;
}

export interface ArmingServiceOptions {
  readonly db: Db;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly fees?: FeeModel;
  readonly drafts: DraftService;
  /** Where every arm and disarm is published (the rule-change hub). */
  readonly onChange: (change: RuleChange) => void;
}

export function createArmingService(opts: ArmingServiceOptions): ArmingService {
  const depsFor = (log: Logger): ArmingDeps => ({
    prisma: opts.db,
    logger: log,
    now: opts.now,
    onChange: opts.onChange,
    ...(opts.fees === undefined ? {} : { fees: opts.fees }),
  });
  return {
    armShadow: (input, log) => armShadow(depsFor(log), input),
    async quoteLive(input, log) {
      const quote = await quoteLiveArm(depsFor(log), input);
      const draft = await opts.drafts.create(
        { userId: quote.userId },
        {
          kind: ARM_DRAFT_KIND,
          payload: {
            ruleId: quote.ruleId,
            maxBuys: quote.maxBuys,
            filtersHash: quote.filtersHash,
            ceilingCents: quote.ceilingCents,
            budgetCents: quote.budgetCents,
            linkGeneration: quote.linkGeneration,
          },
          ttlMs: input.ttlMs,
        },
      );
      return { quote, draftId: draft.id };
    },
    async confirmLive(input, log) {
      const user = await getUserByDiscordId(opts.db, input.discordId);
      if (user === null)
        throw new UserFacingError("not_linked", "Link your marketplace account first with /account link.");
      const taken = await opts.drafts.take(
        { userId: user.id },
        { id: input.draftId, kind: ARM_DRAFT_KIND, schema: ArmDraft },
      );
      if (!taken.ok) {
        throw new UserFacingError(
          "expired",
          taken.reason === "expired"
            ? "This confirmation expired; nothing was armed. Run /watch arm again."
            : "This confirmation was already used or cancelled; nothing more was done.",
        );
      }
      return armLive(depsFor(log), { discordId: input.discordId, ...taken.payload });
    },
    cancelLive: (draftId) => opts.drafts.discard(draftId),
    disarm: (input, log) => disarm(depsFor(log), input),
    async disarmById(input, log) {
      const user = await getUserByDiscordId(opts.db, input.discordId);
      if (user === null || !Number.isSafeInteger(input.ruleId)) return [];
      return disarmById(depsFor(log), { userId: user.id, ruleId: input.ruleId });
    },
    shadowReport: (input) => shadowReport(depsFor(opts.logger), input),
  };
}
