// What the page holds: the bootstrap (users, channels), who is acting, the open channel and its messages,
// and the look-ups the page makes on them.

export const state = {
  boot: undefined,
  me: "",
  channelId: "",
  /** channel id -> message views in order (only for channels opened since the user was picked) */
  messages: new Map(),
  /** message ids seen since the user was picked: a new id elsewhere counts as unread */
  seen: new Set(),
  unread: new Map(),
  dismissed: new Set(),
  events: undefined,
};

export const meUser = () => state.boot.users.find((u) => u.username === state.me);
export const dmChannelId = () => meUser().dmChannelId;
export const isDm = (channelId) => state.boot.users.some((u) => u.dmChannelId === channelId);
export const channelName = () => {
  if (isDm(state.channelId)) return `@${state.boot.bot.displayName}`;
  const channel =
    state.boot.guild.channels.find((c) => c.id === state.channelId) ??
    state.boot.elsewhere.flatMap((g) => g.channels).find((c) => c.id === state.channelId);
  return `#${channel?.name ?? "channel"}`;
};

export const names = () => ({
  users: new Map([state.boot.bot, ...state.boot.users].map((u) => [u.id, u.displayName])),
  channels: new Map(state.boot.guild.channels.map((c) => [c.id, c.name])),
  roles: new Map(state.boot.guild.roles.map((r) => [r.id, r.name])),
});
