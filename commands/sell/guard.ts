// /sell guard: keeps a buy-now listing the cheapest comparable one down to a floor (off:true
// turns it off). The guard itself runs in the background (src/guards/).
import { ApplicationCommandOptionType } from "discord.js";
import type { BaseContext } from "../../src/discord/command.ts";
import { guardSetEmbed } from "../../src/discord/render/alerts/automation.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { parseId } from "../../src/input/parse.ts";
import { guardLimitOptions, guardLimits, turnOffReply, type GuardInput } from "../buyorder/guard.ts";

export const SELL_GUARD_SUBCOMMAND = {
  name: "guard",
  description: "Keep a listing the cheapest comparable one, down to a floor (off:true turns it off)",
  type: ApplicationCommandOptionType.Subcommand,
  options: [
    {
      name: "listing",
      description: "Your buy-now listing's id (from /sell mine)",
      type: ApplicationCommandOptionType.String,
      required: true,
      max_length: 24,
    },
    ...guardLimitOptions("floor"),
  ],
} as const;

export async function runSellGuard(ctx: BaseContext, raw: GuardInput): Promise<Reply> {
  const listingId = parseId("listing", raw.subject);
  if (raw.off === true)
    return turnOffReply(
      ctx,
      { kind: "listing", subjectId: listingId },
      `You have no guard on listing ${listingId}.`,
    );
  const limits = guardLimits(raw, "floor");
  const guard = await ctx.deps.guards.guardListing(
    {
      discordUserId: ctx.user.id,
      listingId,
      floorCents: limits.limitCents,
      stepCents: limits.stepCents,
      maxChangesPerDay: limits.maxChangesPerDay,
    },
    ctx.log,
  );
  ctx.log.info({ guardId: guard.id, listingId }, "listing guard set");
  return { ephemeral: true, embeds: [guardSetEmbed(guard)] };
}
