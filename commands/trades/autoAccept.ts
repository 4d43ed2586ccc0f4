// /trades autoaccept: turns trade auto-accept on (with optional conditions) or off. The trade
// poller does the accepting (src/autoAccept/step.ts); this only saves the switch.
import { ApplicationCommandOptionType } from "discord.js";
import type { BaseContext } from "../../src/discord/command.ts";
import { embed } from "../../src/discord/render/embeds.ts";
import { money } from "../../src/discord/render/format.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { parsePrice, parseText, safeUserText } from "../../src/input/parse.ts";
import type { AutoAcceptSettings } from "../../src/autoAccept/settings.ts";

const MAX_ITEM_TEXT = 100;

export const AUTO_ACCEPT_SUBCOMMAND = {
  name: "autoaccept",
  description:
    "Accept sales waiting on you with no press (you are DM'd each one); enabled:false turns it off",
  type: ApplicationCommandOptionType.Subcommand,
  options: [
    {
      name: "enabled",
      description: "true: accept qualifying sales automatically · false: off",
      type: ApplicationCommandOptionType.Boolean,
      required: true,
    },
    {
      name: "min_price",
      description: "Only sales at or above this price in USD, e.g. 5.00",
      type: ApplicationCommandOptionType.String,
      max_length: 24,
    },
    {
      name: "item",
      description: "Only items whose name contains this text, e.g. Rifle",
      type: ApplicationCommandOptionType.String,
      max_length: MAX_ITEM_TEXT,
    },
  ],
} as const;

export async function runAutoAccept(
  ctx: BaseContext,
  raw: { enabled: boolean; minPrice: string | undefined; item: string | undefined },
): Promise<Reply> {
  // Checked before anything is saved: a typo never leaves a half-set switch.
  const minPriceCents = raw.minPrice === undefined ? undefined : parsePrice("min_price", raw.minPrice);
  const itemContains = raw.item === undefined ? undefined : parseText("item", raw.item, MAX_ITEM_TEXT);
  // Auto-accept runs on the user's linked key: no key, nothing to switch on.
  const saved = await ctx.deps.automation.setAutoAccept(
    { discordUserId: ctx.user.id, enabled: raw.enabled, minPriceCents, itemContains },
    ctx.log,
  );
  return { ephemeral: true, embeds: [settingsEmbed(saved)] };
}

function settingsEmbed(s: AutoAcceptSettings): ReturnType<typeof embed> {
  if (!s.enabled) {
    return embed({
      tone: "info",
      title: "Auto-accept is off",
      description:
        "Sales waiting on you are no longer accepted automatically; each one is DM'd with an Accept button.",
    });
  }
  const conditions = [
    s.minPriceCents === null ? undefined : `priced at least ${money(s.minPriceCents)}`,
    s.itemContains === null ? undefined : `whose item name contains “${safeUserText(s.itemContains, 100)}”`,
  ].filter((c): c is string => c !== undefined);
  return embed({
    tone: "success",
    title: "Auto-accept is on",
    description:
      `Sales waiting on you${conditions.length > 0 ? ` ${conditions.join(" and ")}` : ""} are accepted with no press when the bot next checks your trades. ` +
      "Each one is DM'd with the deadline to send the item; a failure is DM'd at once. " +
      "Turn it off with `/trades autoaccept enabled:false`.",
  });
}
