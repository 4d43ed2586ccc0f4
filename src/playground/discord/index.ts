// The local Discord (REST + gateway) used by tests and the playground: start it, point discord.js at it.
//
//   const double = await startDiscordDouble();            // 127.0.0.1, free port, alice + bob, one guild
//   new Client({ intents, rest: { api: double.apiUrl } }).login("any-token");
//   const h = double.slash(double.user("alice"), "account status");   // or ("watch", { add: { item: "x" } })
//   (await h.firstResponse()).type;  (await h.finalMessage()).content;  h.followUps();
//   double.button(user, customId, message) / select / modalSubmit / autocomplete -> same handle
//   double.on("message" | "interactionResponse" | "request" | "gateway" | ..., listener)  // for a live page
//   double.faults.add({ path: "/messages", status: 429 }); double.closeDms(id); await double.dropGateway();
//   double.setAccountInstall(id, true); double.slash(user, "help", {}, { privateChannel: true })  // installs.ts
export { startDiscordDouble, shardOf } from "./double.ts";
export type { DiscordDouble, DiscordDoubleOptions, InteractionHandle } from "./double.ts";
export type {
  DispatchOptions,
  InteractionState,
  NamedOptions,
  OptionValue,
  SlashOptions,
} from "./interactions.ts";
export {
  DEFAULT_IDS,
  defaultGuild,
  defaultUsers,
  friendsServer,
  isEphemeral,
  memberPermissions,
  textOf,
  BOT_PERMISSIONS,
  EVERYONE_PERMISSIONS,
} from "./model.ts";
export type {
  DoubleChannel,
  DoubleGuild,
  DoubleMember,
  DoubleRole,
  DoubleUser,
  FaultSpec,
  RecordedRequest,
  RegisteredCommand,
  StoredAttachment,
  StoredMessage,
} from "./model.ts";
export { DISCORD_GLOBAL_LIMIT, type GlobalLimit, type SendBudget } from "./rateLimits.ts";
export type { DoubleEvents, InteractionKind, InteractionRecord, InteractionResponse } from "./world.ts";
export { snowflake, snowflakeTime } from "./snowflake.ts";
