// /account export and /account delete: take everything stored about you, or erase it after a confirmation.
// Plugged into commands/account.ts (definitions, handlers and the confirmation's buttons).
import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  type APIApplicationCommandSubcommandOption,
} from "discord.js";
import type { CommandHandler, ComponentHandler } from "../../src/discord/command.ts";
import { deleteConfirmEmbed, deletedEmbed, exportEmbed } from "../../src/discord/render/privacy.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";

const ACTIONS = { confirm: "acct.del.yes", cancel: "acct.del.no" } as const;
const CONFIRM_TTL_MS = 5 * 60_000;

const subcommand = <const O extends APIApplicationCommandSubcommandOption>(o: O): O => o;

export const exportSubcommand = subcommand({
  name: "export",
  description: "Get a file of everything the bot stores about you (only you see it)",
  type: ApplicationCommandOptionType.Subcommand,
});

export const deleteSubcommand = subcommand({
  name: "delete",
  description: "Erase everything the bot stores about you, after a confirmation",
  type: ApplicationCommandOptionType.Subcommand,
});

export const exportHandler: CommandHandler = {
  defer: "ephemeral",
  async run(ctx) {
    const result = await ctx.deps.privacy.export({ discordUserId: ctx.user.id });
    if (!result.found) {
      return {
        ephemeral: true,
        embeds: [notice("info", "Nothing is stored about you: there is nothing to export.")],
      };
    }
    const [first, ...rest] = result.files;
    const attach = (f: { name: string; data: Buffer }) => new AttachmentBuilder(f.data, { name: f.name });
    await ctx.reply({
      ephemeral: true,
      embeds: [exportEmbed(result.counts, result.files.length, result.compressed)],
      files: first === undefined ? [] : [attach(first)],
    });
    for (const part of rest) await ctx.followUp({ ephemeral: true, files: [attach(part)] });
  },
};

export const deleteHandler: CommandHandler = {
  defer: "ephemeral",
  async run(ctx) {
    const preview = await ctx.deps.privacy.previewDelete(ctx.user.id);
    if (preview === undefined) {
      return {
        ephemeral: true,
        embeds: [notice("info", "Nothing is stored about you: there is nothing to delete.")],
      };
    }
    return {
      ephemeral: true,
      embeds: [deleteConfirmEmbed(preview)],
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder()
            .setCustomId(ctx.customId(ACTIONS.confirm, "", { ttlMs: CONFIRM_TTL_MS }))
            .setLabel("Delete everything")
            .setStyle(ButtonStyle.Danger),
          new ButtonBuilder()
            .setCustomId(ctx.customId(ACTIONS.cancel, "", { ttlMs: CONFIRM_TTL_MS }))
            .setLabel("Cancel")
            .setStyle(ButtonStyle.Secondary),
        ),
      ],
    };
  },
};

export const privacyComponents: Readonly<Record<string, ComponentHandler>> = {
  [ACTIONS.confirm]: {
    defer: "update",
    async run(ctx) {
      const result = await ctx.deps.privacy.delete({ discordUserId: ctx.user.id });
      await ctx.update({ embeds: [deletedEmbed(result)], components: [] });
    },
  },
  [ACTIONS.cancel]: {
    defer: "update",
    async run(ctx) {
      await ctx.update({
        embeds: [embed({ tone: "info", description: "ℹ️ Cancelled: nothing was deleted." })],
        components: [],
      });
    },
  },
};
