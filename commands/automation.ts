// /automation: one place to see everything the bot does on its own (armed rules with their stored
// ceilings and what they may still spend, guards, auto-accept, the last automatic actions) and
// one owner-only, confirmed Stop everything button.
import { AUTOMATION_ACTIONS } from "../src/discord/actions.ts";
import { ButtonStyle } from "discord.js";
import { describeStopped } from "../src/automation/describe.ts";
import { anythingOn, type AutomationOverview } from "../src/automation/overview.ts";
import { defineCommand, type BaseContext } from "../src/discord/command.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { automationEmbed } from "../src/discord/render/automationOverview.ts";
import { embed, notice } from "../src/discord/render/embeds.ts";
import { button, row } from "../src/discord/render/button.ts";
import type { MessageUpdate } from "../src/discord/reply.ts";

/** Buttons work this long after the message was shown; /automation shows a fresh one. */
const BUTTON_TTL_MS = 15 * 60_000;

function overviewMessage(ctx: BaseContext, o: AutomationOverview): MessageUpdate {
  const ttl = { ttlMs: BUTTON_TTL_MS };
  return {
    embeds: [automationEmbed(o)],
    components: row([
      ...(anythingOn(o)
        ? [button("Stop everything", ButtonStyle.Danger, ctx.customId(AUTOMATION_ACTIONS.stop, "", ttl))]
        : []),
      button("Refresh", ButtonStyle.Secondary, ctx.customId(AUTOMATION_ACTIONS.refresh, "", ttl)),
    ]),
  };
}

function confirmMessage(ctx: BaseContext, o: AutomationOverview): MessageUpdate {
  const ttl = { ttlMs: BUTTON_TTL_MS };
  const will = describeStopped({
    rules: o.rules.map((r) => r.name),
    guards: o.guards.map((g) => ({ kind: g.kind, subjectId: g.subjectId, itemName: g.itemName })),
    autoAccept: o.autoAccept !== null,
  });
  return {
    embeds: [
      embed({
        tone: "warning",
        title: "Stop everything?",
        description: `This stops at once: ${will ?? "nothing (nothing is on)"}.\n\nAlerts keep coming; nothing you set up is deleted. To turn something on again, arm the rule, set the guard or switch auto-accept on again, with a new confirmation.`,
      }),
    ],
    components: row([
      button(
        "Yes, stop everything",
        ButtonStyle.Danger,
        ctx.customId(AUTOMATION_ACTIONS.stopConfirmed, "", ttl),
      ),
      button("Cancel", ButtonStyle.Secondary, ctx.customId(AUTOMATION_ACTIONS.refresh, "", ttl)),
    ]),
  };
}

export const command = defineCommand({
  definition: {
    name: "automation",
    description: "See everything the bot does for you automatically, and stop it all at once",
    ...EVERYWHERE,
  },
  execute: {
    defer: "ephemeral",
    async run(ctx) {
      const o = await ctx.deps.automation.overview(ctx.user.id);
      return { ephemeral: true, ...overviewMessage(ctx, o) };
    },
  },
  components: {
    [AUTOMATION_ACTIONS.refresh]: {
      defer: "update",
      async run(ctx) {
        await ctx.update(overviewMessage(ctx, await ctx.deps.automation.overview(ctx.user.id)));
      },
    },
    [AUTOMATION_ACTIONS.stop]: {
      defer: "update",
      async run(ctx) {
        const o = await ctx.deps.automation.overview(ctx.user.id);
        await ctx.update(anythingOn(o) ? confirmMessage(ctx, o) : overviewMessage(ctx, o));
      },
    },
    [AUTOMATION_ACTIONS.stopConfirmed]: {
      defer: "update",
      async run(ctx) {
        const stopped = describeStopped(await ctx.deps.automation.stopEverything(ctx.user.id, ctx.log));
        const after = overviewMessage(ctx, await ctx.deps.automation.overview(ctx.user.id));
        await ctx.update({
          embeds: [
            notice(
              "success",
              stopped === undefined
                ? "Nothing was on; nothing changed."
                : `Stopped: ${stopped}. Nothing automatic runs until you turn it on again.`,
            ),
            ...(after.embeds ?? []),
          ],
          components: after.components ?? [],
        });
      },
    },
  },
});
