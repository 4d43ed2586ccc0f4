// Tells a user, once, in their next interaction reply, that alerts could not be sent to them by DM
// (closed DMs, or an account install Discord does not let the bot DM): the alerts are kept for
// `/alerts recent`, never dropped silently (ADR 022).
import type { Logger } from "../../log.ts";
import type { BotDeps } from "../deps.ts";
import { notice } from "../render/embeds.ts";
import type { Responder } from "../reply.ts";

export function dmNoticeText(closedAt: Date): string {
  const since = `<t:${Math.floor(closedAt.getTime() / 1000)}:R>`;
  return [
    `I couldn't send you alerts by DM since ${since}. Nothing is lost: \`/alerts recent\` lists them.`,
    "To get DMs again, allow direct messages from me in Discord's privacy settings, or share a server with me.",
    "The next DM that goes through clears this.",
  ].join("\n");
}

/** After the handler answered: a private follow-up with the notice, if one is due. Never throws. */
export async function followUpWithDmNotice(
  deps: Pick<BotDeps, "alerts">,
  responder: Responder,
  discordId: string,
  log: Logger,
): Promise<void> {
  if (!responder.canFollowUp) return;
  let closedAt: Date | undefined;
  try {
    closedAt = await deps.alerts.claimDmNotice(discordId);
    if (closedAt === undefined) return;
    await responder.followUp({ embeds: [notice("warning", dmNoticeText(closedAt))], ephemeral: true });
    log.info({ closedAt }, "told the user their DMs could not be delivered");
  } catch (error) {
    log.warn({ err: error }, "could not show the closed-DM notice; it stays due");
    if (closedAt !== undefined) await deps.alerts.releaseDmNotice(discordId).catch(() => undefined);
  }
}
