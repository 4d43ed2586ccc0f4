// A user's DM channel opened when they save a watch rule, before their first alert: that alert is
// then one request to Discord (the message) instead of two (open the channel, then post), and a
// fan-out's channel opens no longer queue one behind another on Discord's one route for them.
import type { Client } from "discord.js";
import type { RuleChange } from "../../watch/rules.ts";
import { dmChannelToOpen } from "../../db/repos/delivery.ts";
import { rememberDmChannel } from "../../db/repos/users.ts";
import type { Db } from "../../db/types.ts";
import type { Logger } from "../../log.ts";

/**
 * Returns the rule-change listener. In the background and at most once per user and process:
 * opening a DM channel sends the user nothing, and a failure only means the first alert opens it.
 */
export function dmChannelOpener(deps: {
  client: Client;
  prisma: Db;
  logger: Logger;
}): (change: RuleChange) => void {
  const log = deps.logger.child({ module: "discord.dm_channels" });
  const tried = new Set<number>();
  async function open(userId: number): Promise<void> {
    const discordId = await dmChannelToOpen(deps.prisma, userId);
    if (discordId === undefined) return;
    const channel = await deps.client.users.createDM(discordId);
    await rememberDmChannel(deps.prisma, userId, channel.id);
    log.debug({ userId }, "DM channel opened ahead of the first alert");
  }
  return (change) => {
    if (change.type !== "upsert" || !change.rule.enabled || tried.has(change.rule.userId)) return;
    const userId = change.rule.userId;
    tried.add(userId);
    open(userId).catch((err: unknown) => {
      log.debug({ err, userId }, "DM channel not opened ahead; the first alert opens it");
    });
  };
}
