// Builds the MESSAGE_COMPONENT a user sends by pressing a button or picking in a select menu on a message.
import { ComponentType, InteractionType } from "discord.js";
import { inheritedOwners } from "./installs.ts";
import {
  basePayload,
  recordInteraction,
  type BuiltInteraction,
  type DispatchOptions,
  type PayloadContext,
  type Target,
} from "./interactions.ts";
import type { DoubleUser, StoredMessage } from "./model.ts";
import { findComponent } from "./validation.ts";

export function buildComponent(
  ctx: PayloadContext,
  user: DoubleUser,
  customId: string,
  message: StoredMessage,
  values: readonly string[] | undefined,
  opts: DispatchOptions,
): BuiltInteraction {
  const channel = ctx.world.channels.get(message.channelId);
  if (!channel) throw new Error(`message ${message.id} is in an unknown channel`);
  const target: Target = {
    guild: channel.guildId ? ctx.world.guilds.get(channel.guildId) : undefined,
    channel,
  };
  const component = findComponent(message.components, customId);
  const componentType =
    typeof component?.type === "number"
      ? component.type
      : values === undefined
        ? ComponentType.Button
        : ComponentType.StringSelect;
  const data: Record<string, unknown> = { custom_id: customId, component_type: componentType };
  if (values !== undefined) data.values = [...values];
  const owners = inheritedOwners(ctx.world, message.interactionId);
  const payload = {
    ...basePayload(ctx, InteractionType.MessageComponent, user, target, opts, undefined, owners),
    data,
    message: ctx.world.messageJson(message, ""),
  };
  const kind = values === undefined ? "button" : "select";
  return recordInteraction(ctx, payload, { kind, user, target, customId, sourceMessageId: message.id }, opts);
}
