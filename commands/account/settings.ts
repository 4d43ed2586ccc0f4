// /account settings: where alerts go, spend caps, which alerts, quiet hours. With no option it
// shows the current settings; each given option changes only that setting.
// Plugged into commands/account.ts (definition and handler).
import {
  ApplicationCommandOptionType,
  PermissionFlagsBits,
  type APIApplicationCommandSubcommandOption,
} from "discord.js";
import type { SettingsChange } from "../../src/accounts/settings.ts";
import type { CommandHandler } from "../../src/discord/command.ts";
import { settingsEmbed } from "../../src/discord/render/account.ts";
import { invalidOption, UserFacingError } from "../../src/errors.ts";
import { parseCap, parseQuietHours, parseTimeZone } from "../../src/input/settings.ts";
import { requireServerInstall } from "../../src/discord/install.ts";

const S = ApplicationCommandOptionType.String;
const B = ApplicationCommandOptionType.Boolean;

/** Keeps option names and types literal (for typed options) while staying a mutable API shape. */
const subcommand = <const O extends APIApplicationCommandSubcommandOption>(o: O): O => o;

export const settingsSubcommand = subcommand({
  name: "settings",
  description: "Where alerts go, spend caps, which alerts, quiet hours (no options: show them)",
  type: ApplicationCommandOptionType.Subcommand,
  options: [
    {
      name: "destination",
      description: "Where listing alerts go by default (trade and bid alerts always stay private)",
      type: S,
      choices: [
        { name: "Direct messages", value: "dm" },
        { name: "This channel", value: "channel" },
      ],
    },
    {
      name: "per_purchase_cap",
      description: "Most one purchase may cost, in USD (off to remove)",
      type: S,
      max_length: 24,
    },
    {
      name: "daily_cap",
      description: "Most you spend in 24 hours, in USD (off to remove)",
      type: S,
      max_length: 24,
    },
    { name: "listing_alerts", description: "Alerts for new listings matching your rules", type: B },
    { name: "outbid_alerts", description: "Alerts when you are outbid", type: B },
    { name: "trade_alerts", description: "Alerts about your trades", type: B },
    { name: "buyorder_alerts", description: "Alerts when your buy orders fill", type: B },
    {
      name: "quiet_hours",
      description:
        "Hold alerts in this window, e.g. 22:00-07:00 or 22:00-07:00 Europe/Berlin (off to remove)",
      type: S,
      max_length: 80,
    },
    {
      name: "timezone",
      description: "Your time zone for quiet hours, e.g. Europe/Berlin or UTC+2",
      type: S,
      max_length: 64,
    },
  ],
});

export const settingsHandler: CommandHandler<(typeof settingsSubcommand)["options"]> = {
  defer: "ephemeral",
  async run(ctx) {
    const o = ctx.options;
    const change: { -readonly [K in keyof SettingsChange]: SettingsChange[K] } = {};

    const destination = o.string("destination");
    if (destination === "dm") change.destination = { kind: "dm" };
    else if (destination === "channel") {
      if (ctx.guildId === undefined || ctx.channelId === undefined) {
        throw invalidOption(
          "destination",
          "run this in the server channel where alerts should go (here, choose dm)",
        );
      }
      requireServerInstall(ctx.install, "Choose dm instead, or ask a server admin to add me.");
      // The same rule as /watch add channel: only members who may manage a channel fill it with alerts.
      if (!ctx.memberPermissions?.has(PermissionFlagsBits.ManageChannels)) {
        throw new UserFacingError(
          "missing_permission",
          `You need the **Manage Channels** permission in <#${ctx.channelId}> to send alerts there. Choose dm instead.`,
          { channelId: ctx.channelId },
        );
      }
      change.destination = { kind: "channel", guildId: ctx.guildId, channelId: ctx.channelId };
    } else if (destination !== undefined) throw invalidOption("destination", "choose dm or channel");

    const perPurchase = o.string("per_purchase_cap");
    if (perPurchase !== undefined) change.perPurchaseCapCents = parseCap("per_purchase_cap", perPurchase);
    const daily = o.string("daily_cap");
    if (daily !== undefined) change.dailyCapCents = parseCap("daily_cap", daily);

    const alerts: { listing?: boolean; outbid?: boolean; trade?: boolean; buyOrder?: boolean } = {};
    const listing = o.boolean("listing_alerts");
    const outbid = o.boolean("outbid_alerts");
    const trade = o.boolean("trade_alerts");
    const buyOrder = o.boolean("buyorder_alerts");
    if (listing !== undefined) alerts.listing = listing;
    if (outbid !== undefined) alerts.outbid = outbid;
    if (trade !== undefined) alerts.trade = trade;
    if (buyOrder !== undefined) alerts.buyOrder = buyOrder;
    if (Object.keys(alerts).length > 0) change.alerts = alerts;

    const rawQuiet = o.string("quiet_hours");
    const rawZone = o.string("timezone");
    const quiet = rawQuiet === undefined ? undefined : parseQuietHours("quiet_hours", rawQuiet);
    const zone = rawZone === undefined ? undefined : parseTimeZone("timezone", rawZone);
    if (quiet?.timezone !== undefined && zone !== undefined && quiet.timezone !== zone) {
      throw invalidOption(
        "timezone",
        `quiet_hours names ${quiet.timezone} but timezone is ${zone}; give one zone`,
      );
    }
    if (quiet !== undefined) {
      change.quietHours =
        quiet === null ? null : { startMinute: quiet.startMinute, endMinute: quiet.endMinute };
    }
    const timezone = zone ?? quiet?.timezone;
    if (timezone !== undefined) change.timezone = timezone;

    if (Object.keys(change).length === 0) {
      const current = await ctx.deps.accounts.settings.show({ discordUserId: ctx.user.id });
      return { ephemeral: true, embeds: [settingsEmbed(current, { changed: false })] };
    }
    const saved = await ctx.deps.accounts.settings.change({ discordUserId: ctx.user.id, change });
    return { ephemeral: true, embeds: [settingsEmbed(saved, { changed: true })] };
  },
};
