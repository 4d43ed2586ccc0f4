// /watch arm and /watch disarm (snipe mode): shadow arms at once; live shows the rule, its price
// ceiling, max_buys and the caps, and arms only on the Arm button (a stored draft, used once).
// The Disarm button on every outcome DM lands here too.
import { ApplicationCommandOptionType, ButtonStyle } from "discord.js";
import { z } from "zod";
import { createDraft, takeDraft } from "../../src/db/repos/drafts.ts";
import { getUserByDiscordId } from "../../src/db/repos/users.ts";
import { WATCH_ACTIONS } from "../../src/discord/actions.ts";
import type { BaseContext, ComponentContext } from "../../src/discord/command.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";
import { money, truncate } from "../../src/discord/render/format.ts";
import { button, row } from "../../src/discord/render/button.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { UserFacingError } from "../../src/errors.ts";
import { safeUserText } from "../../src/input/parse.ts";
import {
  armLive,
  armShadow,
  describeCeiling,
  disarm,
  disarmById,
  MAX_BUYS_LIMIT,
  quoteLiveArm,
  type ArmingDeps,
} from "../../src/snipe/arming.ts";
import { describeCaps } from "../../src/spending/guard.ts";

/** Long enough to read the caps; short enough that they are still true when Arm is pressed. */
const CONFIRM_TTL_MS = 5 * 60_000;

const RULE_OPTION = {
  name: "rule",
  description: "The rule's name or number (from /watch list)",
  type: ApplicationCommandOptionType.String,
  required: true,
  autocomplete: true,
  max_length: 50,
} as const;

export const ARM_SUBCOMMANDS = [
  {
    name: "arm",
    description: "Snipe mode: buy what the rule matches at once (live), or record what it would buy (shadow)",
    type: ApplicationCommandOptionType.Subcommand,
    options: [
      RULE_OPTION,
      {
        name: "mode",
        description: "shadow: buys nothing, DMs what it would have bought · live: buys, within your caps",
        type: ApplicationCommandOptionType.String,
        required: true,
        choices: [
          { name: "shadow (dry run)", value: "shadow" },
          { name: "live (buys)", value: "live" },
        ],
      },
      {
        name: "max_buys",
        description: "Stop after this many buys (default 1)",
        type: ApplicationCommandOptionType.Integer,
        min_value: 1,
        max_value: MAX_BUYS_LIMIT,
      },
    ],
  },
  {
    name: "disarm",
    description: "Stop a rule buying (it keeps alerting); `all` disarms every rule",
    type: ApplicationCommandOptionType.Subcommand,
    options: [{ ...RULE_OPTION, description: "The rule's name or number, or all" }],
  },
] as const;

const ArmDraft = z.object({
  ruleId: z.number().int(),
  maxBuys: z.number().int(),
  filtersHash: z.string(),
  ceilingCents: z.number().int().positive(),
  budgetCents: z.number().int().positive(),
  linkGeneration: z.number().int(),
});

function armingDeps(ctx: BaseContext): ArmingDeps {
  return { prisma: ctx.deps.prisma, logger: ctx.log, now: ctx.deps.now };
}

export async function runArm(
  ctx: BaseContext,
  input: { rule: string; mode: string; maxBuys: number | undefined },
): Promise<Reply> {
  const { rule, mode } = input;
  const maxBuys = input.maxBuys ?? 1;
  if (mode === "shadow") {
    const armed = await armShadow(armingDeps(ctx), { discordId: ctx.user.id, rule, maxBuys });
    return {
      ephemeral: true,
      embeds: [
        embed({
          tone: "success",
          title: `Armed in shadow mode: ${truncate(armed.ruleName, 200)}`,
          description: `${armed.summary}\n\nOn each match I will buy **nothing** and DM you what I would have bought, up to ${plural(maxBuys, "buy")}. \`/watch list\` shows the paper result; \`/watch arm mode:live\` when you trust it.`,
        }),
      ],
    };
  }
  const q = await quoteLiveArm(armingDeps(ctx), { discordId: ctx.user.id, rule, maxBuys });
  const draft = await createDraft(ctx.deps.prisma, {
    userId: q.userId,
    kind: WATCH_ACTIONS.arm,
    payload: {
      ruleId: q.ruleId,
      maxBuys: q.maxBuys,
      filtersHash: q.filtersHash,
      ceilingCents: q.ceilingCents,
      budgetCents: q.budgetCents,
      linkGeneration: q.linkGeneration,
    },
    ttlMs: CONFIRM_TTL_MS,
    now: ctx.deps.now(),
  });
  const ttl = { ttlMs: CONFIRM_TTL_MS };
  return {
    ephemeral: true,
    embeds: [
      embed({
        tone: "warning",
        title: `Arm live: ${truncate(q.ruleName, 200)}?`,
        description: `Every new listing this rule matches will be **bought at once** at its listed price, with no further question, until ${plural(q.maxBuys, "buy")} went through.`,
        fields: [
          { name: "Rule", value: q.summary === "" ? "—" : q.summary },
          { name: "Price ceiling", value: describeCeiling(q), inline: true },
          { name: "Max buys", value: String(q.maxBuys), inline: true },
          {
            name: "Most it can spend",
            value: money(q.budgetCents),
            inline: true,
          },
          { name: "Caps", value: describeCaps(q.caps) },
          {
            name: "Safety",
            value:
              "The ceiling, the most it can spend, the rule as shown and your linked account are kept with the rule: raising a cap or editing the rule later never lets it buy more (arm again to confirm a change). One buy at a time; every buy is checked against your caps first; a purchase is never retried; an unclear outcome stays counted until it is found out. Unlinking or a refused key disarms it. Disarm any time with `/watch disarm`, `/automation` or the button on each DM.",
          },
        ],
        footer: `This confirmation expires ${Math.round(CONFIRM_TTL_MS / 60_000)} minutes after it was shown.`,
      }),
    ],
    components: row([
      button("Arm", ButtonStyle.Danger, ctx.customId(WATCH_ACTIONS.arm, draft.id, ttl)),
      button("Cancel", ButtonStyle.Secondary, ctx.customId(WATCH_ACTIONS.armCancel, draft.id, ttl)),
    ]),
  };
}

export async function runDisarm(ctx: BaseContext, input: { rule: string }): Promise<Reply> {
  const names = await disarm(armingDeps(ctx), { discordId: ctx.user.id, rule: input.rule });
  return { ephemeral: true, embeds: [disarmedNotice(names)] };
}

function disarmedNotice(names: readonly string[]) {
  if (names.length === 0) return notice("info", "No rule was armed; nothing changed.");
  const list = names.map((n) => `**${safeUserText(n, 50)}**`).join(", ");
  return notice("success", `Disarmed ${list}: no more automatic buys. Alerts go on as before.`);
}

export async function confirmArm(ctx: ComponentContext): Promise<void> {
  const user = await getUserByDiscordId(ctx.deps.prisma, ctx.user.id);
  if (user === null)
    throw new UserFacingError("not_linked", "Link your marketplace account first with /account link.");
  const taken = await takeDraft(ctx.deps.prisma, {
    id: ctx.id.subject,
    userId: user.id,
    kind: WATCH_ACTIONS.arm,
    schema: ArmDraft,
    now: ctx.deps.now(),
  });
  if (!taken.ok) {
    throw new UserFacingError(
      "expired",
      taken.reason === "expired"
        ? "This confirmation expired; nothing was armed. Run /watch arm again."
        : "This confirmation was already used or cancelled; nothing more was done.",
    );
  }
  const armed = await armLive(armingDeps(ctx), { discordId: ctx.user.id, ...taken.payload });
  await ctx.update({
    embeds: [
      embed({
        tone: "success",
        title: `Armed live: ${truncate(armed.ruleName, 200)}`,
        description: `${armed.summary}\n\nI will buy its next ${plural(armed.maxBuys, "match", "matches")} at once and DM you each outcome. \`/watch disarm rule:${truncate(armed.ruleName, 50)}\` stops it.`,
      }),
    ],
    components: [],
  });
}

export async function cancelArm(ctx: ComponentContext): Promise<void> {
  await ctx.deps.prisma.draft.deleteMany({ where: { id: ctx.id.subject } });
  await ctx.update({ embeds: [notice("info", "Cancelled; the rule was not armed.")], components: [] });
}

/** The Disarm button on an outcome DM: the message stays, its Disarm button goes. */
export async function disarmFromDm(ctx: ComponentContext): Promise<Reply> {
  const user = await getUserByDiscordId(ctx.deps.prisma, ctx.user.id);
  const ruleId = Number(ctx.id.subject);
  if (user === null || !Number.isSafeInteger(ruleId)) {
    return { ephemeral: true, embeds: [notice("info", "No rule was armed; nothing changed.")] };
  }
  const names = await disarmById(armingDeps(ctx), { userId: user.id, ruleId });
  return { ephemeral: true, embeds: [disarmedNotice(names)] };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
