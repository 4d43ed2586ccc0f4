// /watch: saved searches that alert on new listings — add, list, remove, pause, resume and a dry-run test.
import { ApplicationCommandOptionType } from "discord.js";
import { ruleFromOptions } from "../src/watch/ruleOptions.ts";
import type { RuleDestination, RuleView } from "../src/watch/rules.ts";
import type { BaseContext } from "../src/discord/command.ts";
import { defineCommand } from "../src/discord/command.ts";
import { embed, notice } from "../src/discord/render/embeds.ts";
import { money, relativeTime, truncate } from "../src/discord/render/format.ts";
import { safeUserText } from "../src/input/parse.ts";
import { ARM_SUBCOMMANDS, cancelArm, confirmArm, disarmFromDm, runArm, runDisarm } from "./watch/arm.ts";
import { ADD_OPTIONS, EDIT_OPTIONS, FILTERS_OPTIONS } from "./watch/addOptions.ts";
import { ruleOptionsOf, runEdit } from "./watch/edit.ts";
import { adjustSimilar, openSimilar, saveSimilar, similarFormSubmit } from "./watch/similar.ts";
import { WATCH_ACTIONS } from "../src/discord/actions.ts";
import { checkChannelDestination } from "./watch/destination.ts";
import { isTierAutocomplete, TIER_GROUP, TIER_SUBCOMMANDS, tierChoices } from "./watch/tiers.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

const NAME_OPTION = {
  name: "name",
  description: "The rule's name",
  type: ApplicationCommandOptionType.String,
  required: true,
  autocomplete: true,
  max_length: 50,
} as const;

const TEST_SHOWN = 10;

export const command = defineCommand({
  definition: {
    name: "watch",
    description: "Get a DM (or a channel post) the moment a listing matching your rule appears",
    ...EVERYWHERE,
    options: [
      {
        name: "add",
        description: "Save a watch rule",
        type: ApplicationCommandOptionType.Subcommand,
        options: [...ADD_OPTIONS],
      },
      {
        name: "edit",
        description: "Change a rule's item, price, float range, discount or channel; it keeps its history",
        type: ApplicationCommandOptionType.Subcommand,
        options: [...EDIT_OPTIONS],
      },
      {
        name: "filters",
        description: "Set a rule's other filters: seeds, tier, profit, fade, blue gem, stickers...",
        type: ApplicationCommandOptionType.Subcommand,
        options: [...FILTERS_OPTIONS],
      },
      { name: "list", description: "Show your watch rules", type: ApplicationCommandOptionType.Subcommand },
      {
        name: "remove",
        description: "Delete a watch rule",
        type: ApplicationCommandOptionType.Subcommand,
        options: [NAME_OPTION],
      },
      {
        name: "pause",
        description: "Stop a rule's alerts without deleting it",
        type: ApplicationCommandOptionType.Subcommand,
        options: [NAME_OPTION],
      },
      {
        name: "resume",
        description: "Turn a paused rule back on",
        type: ApplicationCommandOptionType.Subcommand,
        options: [NAME_OPTION],
      },
      {
        name: "test",
        description: "Dry run: which recent listings the rule would have alerted on (sends nothing)",
        type: ApplicationCommandOptionType.Subcommand,
        options: [NAME_OPTION],
      },
      ...ARM_SUBCOMMANDS,
      TIER_GROUP,
    ],
  },
  async autocomplete(ctx) {
    if (isTierAutocomplete(ctx)) return tierChoices(ctx);
    if (ctx.focused.name === "item") {
      const names = await ctx.deps.itemNames.suggest(
        { market: ctx.deps.reads.operator(), logger: ctx.log },
        ctx.focused.value,
        { signal: ctx.signal, withRuleNames: true },
      );
      return names.map((n) => ({ name: truncate(n, 100), value: n }));
    }
    const typed = ctx.focused.value.trim();
    const names = await ctx.deps.rules.names({ discordId: ctx.user.id, prefix: typed });
    const choices = names.map((n) => ({ name: n, value: n }));
    // `all` first for disarm when it fits what was typed.
    if (ctx.path === "disarm" && "all".startsWith(typed.toLowerCase()))
      return [{ name: "all (every armed rule)", value: "all" }, ...choices].slice(0, 25);
    return choices;
  },
  subcommands: {
    arm: {
      defer: "ephemeral",
      run: (ctx) =>
        runArm(ctx, {
          rule: ctx.options.string("rule"),
          mode: ctx.options.string("mode"),
          maxBuys: ctx.options.integer("max_buys"),
        }),
    },
    disarm: {
      defer: "ephemeral",
      run: (ctx) => runDisarm(ctx, { rule: ctx.options.string("rule") }),
    },
    add: {
      defer: "ephemeral",
      async run(ctx) {
        const o = ctx.options;
        // The few options most rules use; /watch filters sets the others on the saved rule.
        const filters = ruleFromOptions(ruleOptionsOf(ctx));
        const channel = o.channel("channel");
        const destination: RuleDestination =
          channel === undefined ? { kind: "dm" } : checkChannelDestination(ctx, channel.id);
        const rule = await ctx.deps.rules.add({
          discordId: ctx.user.id,
          name: o.string("name"),
          filters,
          destination,
        });
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: "success",
              title: `Watching: ${truncate(rule.name, 200)}`,
              description: `${rule.summary}\n\nAlerts go to ${where(rule)}. \`/watch test name:${truncate(rule.name, 50)}\` shows what it would have caught recently.`,
            }),
          ],
        };
      },
    },
    edit: { defer: "ephemeral", run: (ctx) => runEdit(ctx) },
    filters: { defer: "ephemeral", run: (ctx) => runEdit(ctx) },
    ...TIER_SUBCOMMANDS,
    list: {
      defer: "ephemeral",
      async run(ctx) {
        const rules = await ctx.deps.rules.list({ discordId: ctx.user.id });
        if (rules.length === 0) {
          return {
            ephemeral: true,
            embeds: [notice("info", "You have no watch rules yet. Add one with `/watch add`.")],
          };
        }
        const lines = await Promise.all(
          rules.map(async (r) => {
            const state = r.enabled ? "🟢" : "⏸️";
            const matched =
              r.matchCount > 0 ? ` · ${r.matchCount} alert${r.matchCount === 1 ? "" : "s"}` : "";
            const last = r.lastMatchedAt ? `, last ${relativeTime(r.lastMatchedAt)}` : "";
            const arm = await armLine(ctx, r);
            return `${state} **${safeUserText(r.name, 50)}** (#${r.id}) → ${where(r)}${matched}${last}\n${r.summary}${arm}`;
          }),
        );
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: "info",
              title: `Your watch rules (${rules.length}/${ctx.deps.config.MAX_RULES_PER_USER})`,
              description: truncate(lines.join("\n\n"), 4000),
            }),
          ],
        };
      },
    },
    remove: {
      defer: "ephemeral",
      async run(ctx) {
        const rule = await ctx.deps.rules.remove({
          discordId: ctx.user.id,
          name: ctx.options.string("name"),
        });
        return {
          ephemeral: true,
          embeds: [notice("success", `Removed **${safeUserText(rule.name, 50)}**. No more alerts from it.`)],
        };
      },
    },
    pause: {
      defer: "ephemeral",
      async run(ctx) {
        const rule = await ctx.deps.rules.setEnabled({
          discordId: ctx.user.id,
          name: ctx.options.string("name"),
          enabled: false,
        });
        return {
          ephemeral: true,
          embeds: [
            notice(
              "success",
              `Paused **${safeUserText(rule.name, 50)}**. \`/watch resume\` turns it back on.`,
            ),
          ],
        };
      },
    },
    resume: {
      defer: "ephemeral",
      async run(ctx) {
        const rule = await ctx.deps.rules.setEnabled({
          discordId: ctx.user.id,
          name: ctx.options.string("name"),
          enabled: true,
        });
        return {
          ephemeral: true,
          embeds: [
            notice(
              "success",
              `**${safeUserText(rule.name, 50)}** is watching again (new listings from now on).`,
            ),
          ],
        };
      },
    },
    test: {
      defer: "ephemeral",
      async run(ctx) {
        const result = await ctx.deps.rules.test({
          discordId: ctx.user.id,
          name: ctx.options.string("name"),
        });
        const shown = result.matches.slice(0, TEST_SHOWN).map((l) => {
          const float = l.item.float_value === undefined ? "" : ` · float ${l.item.float_value.toFixed(4)}`;
          const seed = l.item.paint_seed === undefined ? "" : ` · seed ${l.item.paint_seed}`;
          return `• ${safeUserText(l.item.market_hash_name, 100)} — ${money(l.price)}${float}${seed} · listing ${l.id}`;
        });
        const more =
          result.matches.length > TEST_SHOWN ? `\n…and ${result.matches.length - TEST_SHOWN} more.` : "";
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: result.matches.length > 0 ? "deal" : "neutral",
              title: `Dry run: ${truncate(result.rule.name, 200)}`,
              description:
                result.matches.length === 0
                  ? `None of the ${result.examined} most recent relevant listings would have alerted.`
                  : `${result.matches.length} of the ${result.examined} most recent relevant listings would have alerted:\n${shown.join("\n")}${more}`,
              footer: "Dry run: no alert was sent.",
            }),
          ],
        };
      },
    },
  },
  components: {
    // The confirmation becomes the receipt; refusals (expired, changed rule) arrive privately.
    [WATCH_ACTIONS.arm]: { defer: "update", run: confirmArm },
    [WATCH_ACTIONS.armCancel]: { defer: false, run: cancelArm },
    [WATCH_ACTIONS.disarm]: { defer: "ephemeral", run: disarmFromDm },
    [WATCH_ACTIONS.similar]: openSimilar(),
    [WATCH_ACTIONS.similarSave]: saveSimilar(),
    [WATCH_ACTIONS.similarAdjust]: adjustSimilar(),
  },
  modals: {
    [WATCH_ACTIONS.similarForm]: similarFormSubmit(),
  },
});

/** The snipe-mode line under an armed rule: buys used and, in shadow mode, the paper result. */
async function armLine(ctx: BaseContext, r: RuleView): Promise<string> {
  if (r.arm === undefined) return "";
  const used = `${r.arm.buys}/${r.arm.maxBuys}`;
  if (r.arm.mode === "live") return `\n🎯 **Armed live**: ${used} buys used.`;
  const p = await ctx.deps.arming.shadowReport({ ruleId: r.id, since: r.arm.since });
  const paper =
    p.wouldHaveBought === 0
      ? "nothing yet"
      : `would have bought ${p.wouldHaveBought} for ${money(p.spentCents)}, paper result ${money(p.paperNetCents, { sign: true })} at reference after fees${p.unpriced > 0 ? ` (${p.unpriced} without a reference)` : ""}`;
  return `\n👁️ **Armed in shadow**: ${used} · ${paper}.`;
}

function where(rule: RuleView): string {
  return rule.destination.kind === "channel" ? `<#${rule.destination.channelId}>` : "your DMs";
}
