// /buyorder guard: keeps an order the highest up to a ceiling (off:true turns it off); the
// "Turn off guard" buttons of guard digests (either kind of guard) land here too.
import { ApplicationCommandOptionType } from "discord.js";
import { GUARD_ACTIONS } from "../../src/discord/actions.ts";
import type { BaseContext, ComponentHandler } from "../../src/discord/command.ts";
import { guardOffEmbed, guardSetEmbed } from "../../src/discord/render/alerts/automation.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { invalidOption, UserFacingError } from "../../src/errors.ts";
import { parseId, parseIntOption, parsePrice } from "../../src/input/parse.ts";
import { DEFAULT_MAX_CHANGES_PER_DAY, MAX_CHANGES_PER_DAY } from "../../src/guards/setGuard.ts";
import type { GuardSettings } from "../../src/guards/settings.ts";

const S = ApplicationCommandOptionType.String;

/** The options both guard subcommands share after their subject. */
export function guardLimitOptions(limit: "ceiling" | "floor") {
  return [
    {
      name: limit,
      description:
        limit === "ceiling"
          ? "Highest price the guard may raise to, USD, e.g. 15.00"
          : "Lowest price the guard may lower to, USD, e.g. 8.00",
      type: S,
      max_length: 24,
    },
    {
      name: "step",
      description: "How far past the rival each change goes, USD, e.g. 0.05",
      type: S,
      max_length: 24,
    },
    {
      name: "max_changes",
      description: `Most changes a day (default ${DEFAULT_MAX_CHANGES_PER_DAY})`,
      type: ApplicationCommandOptionType.Integer,
      min_value: 1,
      max_value: MAX_CHANGES_PER_DAY,
    },
    {
      name: "off",
      description: "true: turn this guard off",
      type: ApplicationCommandOptionType.Boolean,
    },
  ] as const;
}

export const BUYORDER_GUARD_SUBCOMMAND = {
  name: "guard",
  description: "Keep an order the highest, up to a ceiling, a few changes a day (off:true turns it off)",
  type: ApplicationCommandOptionType.Subcommand,
  options: [
    {
      name: "order",
      description: "Buy order id (from /buyorder list)",
      type: S,
      required: true,
      max_length: 24,
    },
    ...guardLimitOptions("ceiling"),
  ],
} as const;

export interface GuardInput {
  subject: string;
  limit: string | undefined;
  step: string | undefined;
  maxChanges: number | undefined;
  off: boolean | undefined;
}

/** The limit and step in cents, or a clear message naming what is missing (nothing is saved). */
export function guardLimits(raw: GuardInput, limit: "ceiling" | "floor") {
  if (raw.limit === undefined)
    throw invalidOption(limit, `give a ${limit} in USD, or off:true to turn the guard off`);
  if (raw.step === undefined) throw invalidOption("step", "give a step in USD, e.g. 0.05");
  return {
    limitCents: parsePrice(limit, raw.limit),
    stepCents: parsePrice("step", raw.step),
    maxChangesPerDay:
      raw.maxChanges === undefined
        ? undefined
        : parseIntOption("max_changes", raw.maxChanges, 1, MAX_CHANGES_PER_DAY),
  };
}

/** Turns off the caller's own guard (by id, or by what it guards) and answers privately. */
export async function turnOffReply(
  ctx: BaseContext,
  which: Parameters<GuardSettings["turnOff"]>[0]["which"],
  noGuard: string,
): Promise<Reply> {
  const off = await ctx.deps.guards.turnOff({ discordUserId: ctx.user.id, which });
  if (off === undefined) throw new UserFacingError("not_found", noGuard);
  return { ephemeral: true, embeds: [guardOffEmbed(off)] };
}

export async function runBuyOrderGuard(ctx: BaseContext, raw: GuardInput): Promise<Reply> {
  const orderId = parseId("order", raw.subject, "buy order");
  if (raw.off === true)
    return turnOffReply(
      ctx,
      { kind: "buy_order", subjectId: orderId },
      `You have no guard on order ${orderId}.`,
    );
  const limits = guardLimits(raw, "ceiling");
  const guard = await ctx.deps.guards.guardBuyOrder(
    {
      discordUserId: ctx.user.id,
      orderId,
      ceilingCents: limits.limitCents,
      stepCents: limits.stepCents,
      maxChangesPerDay: limits.maxChangesPerDay,
    },
    ctx.log,
  );
  ctx.log.info({ guardId: guard.id, orderId }, "buy-order guard set");
  return { ephemeral: true, embeds: [guardSetEmbed(guard)] };
}

/** "Turn off guard" on a digest: owner-only (the codec), and only the owner's own guard row. */
export const guardOffButton: ComponentHandler = {
  defer: "ephemeral",
  async run(ctx) {
    // Guard ids are database ints: anything else is a damaged button, not a query to send.
    if (!/^\d{1,9}$/.test(ctx.id.subject))
      throw new UserFacingError(
        "invalid_input",
        "This button is damaged; use /buyorder guard or /sell guard with off:true.",
      );
    return turnOffReply(ctx, { id: Number(ctx.id.subject) }, "You have no such guard.");
  },
};

export const GUARD_COMPONENTS = { [GUARD_ACTIONS.off]: guardOffButton } as const;
