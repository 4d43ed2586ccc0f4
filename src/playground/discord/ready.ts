// What a bot receives when a shard identifies: READY and one GUILD_CREATE per guild the shard serves.
import type { ShardReady } from "./gateway.ts";
import { installedInGuild } from "./installs.ts";
import { apiUser, type DoubleGuild, type DoubleUser } from "./model.ts";
import type { World } from "./world.ts";

export function shardReady(
  world: World,
  bot: DoubleUser,
  applicationId: string,
  shardId: number,
  shardCount: number,
): ShardReady {
  // Only guilds the app is installed to (its bot is a member) reach the bot's gateway.
  const mine = [...world.guilds.values()].filter(
    (g) => shardOf(g.id, shardCount) === shardId && installedInGuild(world, g),
  );
  return {
    ready: {
      v: 10,
      user: { ...apiUser(bot), verified: true, mfa_enabled: false, flags: 0 },
      application: { id: applicationId, flags: 0 },
      guilds: mine.map((g) => ({ id: g.id, unavailable: true })),
      private_channels: [],
      presences: [],
      relationships: [],
      user_settings: {},
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
    },
    guildCreates: mine.map((g) => guildCreate(world, g)),
  };
}

/** Which shard serves a guild: (guild_id >> 22) % shard_count, Discord's formula. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(Math.max(1, shardCount)));
}

function guildCreate(world: World, g: DoubleGuild): Record<string, unknown> {
  const members = g.members.flatMap((m) => {
    const user = world.users.get(m.userId);
    if (!user) return [];
    return [
      {
        user: apiUser(user),
        roles: [...m.roles],
        nick: m.nick ?? null,
        joined_at: new Date(Date.now() - 86_400_000).toISOString(),
        deaf: false,
        mute: false,
        flags: 0,
        pending: false,
      },
    ];
  });
  return {
    id: g.id,
    name: g.name,
    unavailable: false,
    owner_id: g.ownerId,
    icon: null,
    splash: null,
    discovery_splash: null,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    features: [],
    mfa_level: 0,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: g.locale ?? "en-US",
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    joined_at: new Date(Date.now() - 86_400_000).toISOString(),
    large: false,
    member_count: members.length,
    roles: g.roles.map((r, position) => ({
      id: r.id,
      name: r.name,
      permissions: String(r.permissions),
      color: 0,
      hoist: false,
      position,
      managed: false,
      mentionable: false,
      flags: 0,
    })),
    channels: g.channels.map((c, position) => ({
      id: c.id,
      type: c.type,
      name: c.name,
      position,
      parent_id: c.parentId ?? null,
      permission_overwrites: [],
      nsfw: false,
      flags: 0,
    })),
    members,
    emojis: [],
    stickers: [],
    threads: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
