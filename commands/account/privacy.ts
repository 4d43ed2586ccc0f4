// /account export and /account delete: take everything stored about you, or erase it after a confirmation.
// Plugged into commands/account.ts (definitions, handlers and the confirmation's buttons).
import {
  ApplicationCommandOptionType,
  AttachmentBuilder,
  ButtonStyle,
  type APIApplicationCommandSubcommandOption,
} from "discord.js";
import { ACCOUNT_ACTIONS } from "../../src/discord/actions.ts";
import type { CommandHandler, ComponentHandler } from "../../src/discord/command.ts";
import { button, row } from "../../src/discord/render/button.ts";
import { deleteConfirmEmbed, deletedEmbed, exportEmbed } from "../../src/discord/render/privacy.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";

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
      components: row([
        button(
          "Delete everything",
          ButtonStyle.Danger,
          ctx.customId(ACCOUNT_ACTIONS.deleteConfirm, "", { ttlMs: CONFIRM_TTL_MS }),
        ),
        button(
          "Cancel",
          ButtonStyle.Secondary,
          ctx.customId(ACCOUNT_ACTIONS.deleteCancel, "", { ttlMs: CONFIRM_TTL_MS }),
        ),
      ]),
    };
  },
};

export const privacyComponents: Readonly<Record<string, ComponentHandler>> = {
  [ACCOUNT_ACTIONS.deleteConfirm]: {
    defer: "update",
    async run(ctx) {
      const result = await ctx.deps.privacy.delete({ discordUserId: ctx.user.id });
      await ctx.update({ embeds: [deletedEmbed(result)], components: [] });
    },
  },
  [ACCOUNT_ACTIONS.deleteCancel]: {
    defer: "update",
    async run(ctx) {
      await ctx.update({
        embeds: [embed({ tone: "info", description: "ℹ️ Cancelled: nothing was deleted." })],
        components: [],
      });
    },
  },
};
