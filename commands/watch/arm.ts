// /watch arm and /watch disarm (snipe mode): shadow arms at once; live shows the rule, its price
// ceiling, max_buys and the caps, and arms only on the Arm button (a stored draft, used once).
// The Disarm button on every outcome DM lands here too.
import { ApplicationCommandOptionType, ButtonStyle } from "discord.js";
import { WATCH_ACTIONS } from "../../src/discord/actions.ts";
import type { BaseContext, ComponentContext } from "../../src/discord/command.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";
import { money, truncate } from "../../src/discord/render/format.ts";
import { button, row } from "../../src/discord/render/button.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { safeUserText } from "../../src/input/parse.ts";
import { describeCeiling, MAX_BUYS_LIMIT } from "../../src/snipe/arming.ts";
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

export async function runArm(
  ctx: BaseContext,
  input: { rule: string; mode: string; maxBuys: number | undefined },
): Promise<Reply> {
  const { rule, mode } = input;
  const maxBuys = input.maxBuys ?? 1;
  if (mode === "shadow") {
    const armed = await ctx.deps.arming.armShadow({ discordId: ctx.user.id, rule, maxBuys }, ctx.log);
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
  const { quote: q, draftId } = await ctx.deps.arming.quoteLive(
    { discordId: ctx.user.id, rule, maxBuys, ttlMs: CONFIRM_TTL_MS },
    ctx.log,
  );
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
              "The ceiling, the most it can spend, the rule as shown and your linked account are kept with the rule: raising a cap or editing the rule later never lets it buy more (arm again to confirm a change). Every buy is reserved against your caps before it is sent, so buys at the same moment never pass them together; a purchase is never retried; an unclear outcome stays counted until it is found out. Unlinking or a refused key disarms it. Disarm any time with `/watch disarm`, `/automation` or the button on each DM.",
          },
        ],
        footer: `This confirmation expires ${Math.round(CONFIRM_TTL_MS / 60_000)} minutes after it was shown.`,
      }),
    ],
    components: row([
      button("Arm", ButtonStyle.Danger, ctx.customId(WATCH_ACTIONS.arm, draftId, ttl)),
      button("Cancel", ButtonStyle.Secondary, ctx.customId(WATCH_ACTIONS.armCancel, draftId, ttl)),
    ]),
  };
}

export async function runDisarm(ctx: BaseContext, input: { rule: string }): Promise<Reply> {
  const names = await ctx.deps.arming.disarm({ discordId: ctx.user.id, rule: input.rule }, ctx.log);
  return { ephemeral: true, embeds: [disarmedNotice(names)] };
}

function disarmedNotice(names: readonly string[]) {
  if (names.length === 0) return notice("info", "No rule was armed; nothing changed.");
  const list = names.map((n) => `**${safeUserText(n, 50)}**`).join(", ");
  return notice("success", `Disarmed ${list}: no more automatic buys. Alerts go on as before.`);
}

export async function confirmArm(ctx: ComponentContext): Promise<void> {
  const armed = await ctx.deps.arming.confirmLive(
    { discordId: ctx.user.id, draftId: ctx.id.subject },
    ctx.log,
  );
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
  await ctx.deps.arming.cancelLive(ctx.id.subject);
  await ctx.update({ embeds: [notice("info", "Cancelled; the rule was not armed.")], components: [] });
}

/** The Disarm button on an outcome DM: the message stays, its Disarm button goes. */
export async function disarmFromDm(ctx: ComponentContext): Promise<Reply> {
  const names = await ctx.deps.arming.disarmById(
    { discordId: ctx.user.id, ruleId: Number(ctx.id.subject) },
    ctx.log,
  );
  return { ephemeral: true, embeds: [disarmedNotice(names)] };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
