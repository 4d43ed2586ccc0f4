// "Watch similar" on alerts and listing views: the rule a listing suggests, shown, then saved with one press.
import { ButtonStyle } from "discord.js";
import { marketForReading } from "../../src/alerts/actions.ts";
import { describeFilters } from "../../src/alerts/describeFilters.ts";
import type { RuleDeps } from "../../src/alerts/rules.ts";
import { proposeSimilarRule, saveSimilarRule } from "../../src/alerts/similarRule.ts";
import { ACTIONS } from "../../src/discord/actions.ts";
import type { ComponentContext, ComponentHandler } from "../../src/discord/command.ts";
import { embed } from "../../src/discord/render/embeds.ts";
import { truncate } from "../../src/discord/render/format.ts";
import { button, row } from "../../src/discord/render/trading.ts";
import { parseId } from "../../src/input/parse.ts";

/** Long enough to look the rule over; the Save press reads the listing again anyway. */
const SAVE_TTL_MS = 60 * 60_000;

/** Shows the rule the listing suggests, with Save. Nothing is saved yet. */
export function openSimilar(): ComponentHandler {
  return {
    defer: "ephemeral",
    async run(ctx: ComponentContext) {
      const listingId = parseId("listing", ctx.id.subject);
      const market = await marketForReading(ctx.deps, { discordId: ctx.user.id });
      const proposed = await proposeSimilarRule({ market }, { listingId });
      return {
        ephemeral: true,
        embeds: [
          embed({
            tone: "info",
            title: truncate(`Watch things like this: ${proposed.name}`, 256),
            description:
              `${describeFilters(proposed.filters)}\n\nAlerts go to your DMs. **Save rule** saves it as shown; ` +
              "`/watch edit` changes it afterwards.",
            footer: `From listing ${listingId}`,
          }),
        ],
        components: row([
          button(
            "Save rule",
            ButtonStyle.Success,
            ctx.customId(ACTIONS.watchSimilarSave, listingId, { ttlMs: SAVE_TTL_MS }),
          ),
        ]),
      };
    },
  };
}

/** Save rule: the proposal made again from the listing and saved under a free name. */
export function saveSimilar(deps: (ctx: ComponentContext) => RuleDeps): ComponentHandler {
  return {
    defer: "update",
    async run(ctx: ComponentContext) {
      const listingId = parseId("listing", ctx.id.subject);
      const market = await marketForReading(ctx.deps, { discordId: ctx.user.id });
      const rule = await saveSimilarRule({ ...deps(ctx), market }, { discordId: ctx.user.id, listingId });
      await ctx.update({
        embeds: [
          embed({
            tone: "success",
            title: truncate(`Watching: ${rule.name}`, 256),
            description: `${rule.summary}\n\nAlerts go to your DMs. \`/watch edit rule:${truncate(rule.name, 50)}\` changes it.`,
          }),
        ],
        components: [],
      });
    },
  };
}
