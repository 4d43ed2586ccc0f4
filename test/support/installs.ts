// Worlds for account installs: servers the app is not in (with or without Use External Apps for
// @everyone), next to the default server it is installed to.
import { ChannelType, PermissionFlagsBits } from "discord.js";
import { DEFAULT_IDS, defaultGuild, EVERYONE_PERMISSIONS, type DoubleGuild } from "./discord.ts";

export const FOREIGN = {
  /** Allows external apps (Discord's default): account installs may answer publicly. */
  open: { guild: "1187364777439215700", channel: "1187364778160000101" },
  /** @everyone may not use external apps: account installs' answers are ephemeral. */
  strict: { guild: "1187364777439215800", channel: "1187364778160000201" },
} as const;

function foreignGuild(ids: { guild: string; channel: string }, name: string, everyone: bigint): DoubleGuild {
  return {
    id: ids.guild,
    name,
    ownerId: "150000000000000002",
    channels: [{ id: ids.channel, name: "chat", type: ChannelType.GuildText }],
    roles: [{ id: ids.guild, name: "@everyone", permissions: everyone }],
    // The app's bot is not a member: the app is not installed to these servers.
    members: [
      { userId: DEFAULT_IDS.alice, roles: [] },
      { userId: DEFAULT_IDS.bob, roles: [] },
    ],
  };
}

/** The default server (the app installed) plus two servers without it. */
export function guildsWithForeignServers(): DoubleGuild[] {
  const everyone = EVERYONE_PERMISSIONS | PermissionFlagsBits.UseExternalApps;
  return [
    defaultGuild(DEFAULT_IDS.application),
    foreignGuild(FOREIGN.open, "Friends", everyone),
    foreignGuild(FOREIGN.strict, "Strict Friends", everyone & ~PermissionFlagsBits.UseExternalApps),
  ];
}
