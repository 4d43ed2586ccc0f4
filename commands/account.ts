// /account: link (key asked in a private form, never a visible option), unlink, status, and the
// rest as entries under `subcommands` (transactions, settings, export, delete).
import { ACCOUNT_ACTIONS } from "../src/discord/actions.ts";
import {
  ApplicationCommandOptionType,
  ButtonStyle,
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
} from "discord.js";
import { z } from "zod";
import type { AccountStatus } from "../src/accounts/index.ts";
import { describeStopped, type StoppedAutomation } from "../src/automation/describe.ts";
import { defineCommand, modal } from "../src/discord/command.ts";
import { button, row } from "../src/discord/render/button.ts";
import { embed, notice } from "../src/discord/render/embeds.ts";
import { absoluteTime, relativeTime, sanitise } from "../src/discord/render/format.ts";
import type { Reply } from "../src/discord/reply.ts";
import {
  deleteHandler,
  deleteSubcommand,
  exportHandler,
  exportSubcommand,
  privacyComponents,
} from "./account/privacy.ts";
import { settingsHandler, settingsSubcommand } from "./account/settings.ts";
import {
  transactionsComponents,
  transactionsHandler,
  transactionsSubcommand,
} from "./account/transactions.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

const LINK_FORM_TTL_MS = 15 * 60_000;
const CHECK_BUTTON_TTL_MS = 15 * 60_000;

const LinkForm = z.object({
  key: z
    .string()
    .trim()
    .min(8, "the key looks too short — paste the whole key")
    .max(256, "the key looks too long — paste only the key"),
});

export const command = defineCommand({
  definition: {
    name: "account",
    description: "Link your marketplace account and see what is linked",
    ...EVERYWHERE,
    options: [
      {
        name: "link",
        description: "Link your marketplace API key (asked in a private form)",
        type: ApplicationCommandOptionType.Subcommand,
      },
      {
        name: "unlink",
        description: "Forget your key and stop everything that needs it",
        type: ApplicationCommandOptionType.Subcommand,
      },
      {
        name: "status",
        description: "Show which marketplace account is linked",
        type: ApplicationCommandOptionType.Subcommand,
      },
      transactionsSubcommand,
      settingsSubcommand,
      exportSubcommand,
      deleteSubcommand,
    ],
  },
  subcommands: {
    link: {
      // A modal must be the first answer, so no deferral; nothing slow happens before it.
      defer: false,
      async run(ctx) {
        await ctx.showModal(
          new ModalBuilder()
            .setCustomId(ctx.customId(ACCOUNT_ACTIONS.linkForm, "", { ttlMs: LINK_FORM_TTL_MS }))
            .setTitle("Link your marketplace account")
            .addLabelComponents(
              new LabelBuilder()
                .setLabel("API key")
                .setDescription(
                  "From your marketplace account settings. Stored encrypted; never shown again.",
                )
                .setTextInputComponent(
                  new TextInputBuilder()
                    .setCustomId("key")
                    .setStyle(TextInputStyle.Short)
                    .setRequired(true)
                    .setMinLength(8)
                    .setMaxLength(256)
                    .setPlaceholder("Paste your API key"),
                ),
            ),
        );
      },
    },
    unlink: {
      defer: "ephemeral",
      async run(ctx) {
        const result = await ctx.deps.accounts.unlink({ discordUserId: ctx.user.id });
        if (!result.wasLinked) {
          const stopped = describeStopped(result.stopped);
          return {
            ephemeral: true,
            embeds: [
              notice(
                "info",
                stopped === undefined
                  ? "No marketplace account is linked; nothing to remove."
                  : `No marketplace account is linked. Automation stopped: ${stopped}.`,
              ),
            ],
          };
        }
        const rules =
          result.rulesKept > 0
            ? ` Your ${result.rulesKept} watch rule${result.rulesKept === 1 ? "" : "s"} stay: listing alerts need no key.`
            : "";
        const stopped = describeStopped(result.stopped);
        const automation =
          stopped === undefined
            ? ""
            : ` Automation stopped: ${stopped}. It stays off after a new link until you turn it on again.`;
        return {
          ephemeral: true,
          embeds: [
            notice(
              "success",
              `Unlinked. Your key was deleted and bid, trade and buy-order tracking stopped.${automation}${rules} Run \`/account link\` to link again.`,
            ),
          ],
        };
      },
    },
    status: {
      defer: "ephemeral",
      async run(ctx) {
        const status = await ctx.deps.accounts.status({ discordUserId: ctx.user.id });
        return statusReply(
          status,
          status.linked ? ctx.customId(ACCOUNT_ACTIONS.check, "", { ttlMs: CHECK_BUTTON_TTL_MS }) : undefined,
        );
      },
    },
    transactions: transactionsHandler,
    settings: settingsHandler,
    export: exportHandler,
    delete: deleteHandler,
  },
  components: {
    ...transactionsComponents,
    ...privacyComponents,
    [ACCOUNT_ACTIONS.check]: {
      defer: "update",
      async run(ctx) {
        const check = await ctx.deps.accounts.checkKey({ discordUserId: ctx.user.id });
        const status = await ctx.deps.accounts.status({ discordUserId: ctx.user.id });
        const verdict = check.valid
          ? `✅ The marketplace accepted your key ${relativeTime(ctx.deps.now())}.`
          : "⚠️ The marketplace refused your key: it may have been revoked. Run `/account link` with a new key.";
        const { embeds = [] } = statusReply(status, undefined);
        await ctx.update({
          embeds: [...embeds, embed({ tone: check.valid ? "success" : "warning", description: verdict })],
          components: [],
        });
      },
    },
  },
  modals: {
    [ACCOUNT_ACTIONS.linkForm]: modal({
      defer: "ephemeral",
      fields: LinkForm,
      async run(ctx, { key }) {
        const linked = await ctx.deps.accounts.link({ discordUserId: ctx.user.id, apiKey: key });
        const who = linked.platformName ? ` to **${sanitise(linked.platformName, 64)}**` : "";
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: "success",
              title: "Account linked",
              description: `✅ Linked${who} with key \`${linked.fingerprint}\`. The key is stored encrypted; \`/account unlink\` removes it.${stoppedOnLink(linked.stopped)}`,
            }),
          ],
        };
      },
    }),
  },
});

function statusReply(status: AccountStatus, checkButtonId: string | undefined): Reply {
  if (!status.linked) {
    const rules =
      status.ruleCount > 0
        ? ` You have ${status.ruleCount} watch rule(s); listing alerts work without a key.`
        : "";
    return {
      ephemeral: true,
      embeds: [
        notice("info", `No marketplace account is linked. Run \`/account link\` to link one.${rules}`),
      ],
    };
  }
  const fields = [
    {
      name: "Account",
      value: status.platformName ? sanitise(status.platformName, 64) : "(name not available)",
      inline: true,
    },
    { name: "Platform id", value: status.platformId ?? "—", inline: true },
    { name: "Key", value: `\`${status.fingerprint}\``, inline: true },
    {
      name: "Status",
      value: status.status === "active" ? "✅ active" : "⚠️ revoked — run `/account link` again",
      inline: true,
    },
    {
      name: "Linked since",
      value: status.linkedAt ? `${absoluteTime(status.linkedAt)} (${relativeTime(status.linkedAt)})` : "—",
      inline: true,
    },
    { name: "Watch rules", value: String(status.ruleCount), inline: true },
  ];
  return {
    ephemeral: true,
    embeds: [
      embed({ tone: status.status === "active" ? "info" : "warning", title: "Marketplace account", fields }),
    ],
    components: checkButtonId ? row([button("Check key now", ButtonStyle.Secondary, checkButtonId)]) : [],
  };
}

/** What a link to another (or an unknown) account turned off, for the link reply. */
function stoppedOnLink(stopped: StoppedAutomation): string {
  const text = describeStopped(stopped);
  return text === undefined
    ? ""
    : `\n\n⚠️ This may be another marketplace account, so the automation of the previous link was stopped: ${text}. Turn on again what you want on this account (\`/automation\` shows what is on).`;
}
