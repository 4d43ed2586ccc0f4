// The users' side of the double: what a person does in Discord's client (a slash command, a keystroke
// in an autocompleted option, a button, a select menu, a modal), dispatched to the bot as INTERACTION_CREATE.
import type { Gateway } from "./gateway.ts";
import { createHandle, type InteractionHandle, type WaitFor } from "./handles.ts";
import {
  type BuiltInteraction,
  type DispatchOptions,
  type OptionValue,
  type PayloadContext,
  type SlashOptions,
} from "./interactions.ts";
import { buildModalSubmit } from "./modalPayloads.ts";
import { buildAutocomplete, buildSlash } from "./commandPayloads.ts";
import { buildComponent } from "./componentPayloads.ts";
import { isEphemeral, type DoubleUser, type StoredMessage } from "./model.ts";
import { shardOf } from "./ready.ts";
import { findComponent } from "./validation.ts";
import type { World } from "./world.ts";

export interface UserActions {
  slash(user: DoubleUser, command: string, options?: SlashOptions, opts?: DispatchOptions): InteractionHandle;
  autocomplete(
    user: DoubleUser,
    command: string,
    options: Readonly<Record<string, OptionValue>>,
    focused: string,
    opts?: DispatchOptions,
  ): InteractionHandle;
  /** Presses a button. Without `message`, a bot message carrying that button is made up first. */
  button(
    user: DoubleUser,
    customId: string,
    message?: StoredMessage,
    opts?: DispatchOptions,
  ): InteractionHandle;
  select(
    user: DoubleUser,
    customId: string,
    values: readonly string[],
    message?: StoredMessage,
    opts?: DispatchOptions,
  ): InteractionHandle;
  modalSubmit(
    user: DoubleUser,
    customId: string,
    fields: Readonly<Record<string, string>>,
    opts?: DispatchOptions,
  ): InteractionHandle;
}

export interface UserActionDeps {
  readonly world: World;
  readonly gateway: Pick<Gateway, "dispatch" | "shardCount">;
  readonly payloadContext: () => PayloadContext;
  readonly waitFor: WaitFor;
  /** The double's postMessage: a bot message made up for a press on a message from before a restart. */
  readonly postMessage: (
    channelId: string,
    body: { content?: string; components?: unknown[] },
  ) => StoredMessage;
  /** The default guild's first text channel. */
  readonly defaultChannelId: () => string;
}

export function userActions(deps: UserActionDeps): UserActions {
  const { world, gateway, payloadContext, waitFor } = deps;
  const dispatch = (built: BuiltInteraction): InteractionHandle => {
    const shardId = built.shardGuildId ? shardOf(built.shardGuildId, gateway.shardCount) : 0;
    world.addInteraction(built.record);
    gateway.dispatch(shardId, "INTERACTION_CREATE", built.payload);
    return createHandle(world, built.record, waitFor);
  };

  const bySource = (
    user: DoubleUser,
    userMessage: StoredMessage | undefined,
    customId: string,
    channelId: string | undefined,
  ) => {
    if (userMessage) {
      const current = world.messages.get(userMessage.id);
      if (!current || current.deleted) throw new Error(`message ${userMessage.id} no longer exists`);
      if (!findComponent(current.components, customId)) {
        throw new Error(`message ${current.id} has no component with custom_id "${customId}"`);
      }
      // Discord shows an ephemeral message to one user only: nobody else can click on it.
      const owner = current.interactionId ? world.interactions.get(current.interactionId)?.user : undefined;
      if (isEphemeral(current) && owner && owner.id !== user.id) {
        throw new Error(`${user.username} cannot see ${owner.username}'s ephemeral message ${current.id}`);
      }
      return current;
    }
    // A message from before a restart: the bot sent it, the user clicks it now.
    return deps.postMessage(channelId ?? deps.defaultChannelId(), {
      content: "(message sent earlier)",
      components: [{ type: 1, components: [{ type: 2, style: 1, label: "Button", custom_id: customId }] }],
    });
  };

  return {
    slash(user, command, slashOptions = {}, opts = {}) {
      return dispatch(buildSlash(payloadContext(), user, command, slashOptions, opts));
    },
    autocomplete(user, command, values, focused, opts = {}) {
      return dispatch(buildAutocomplete(payloadContext(), user, command, values, focused, opts));
    },
    button(user, customId, message, opts = {}) {
      const source = bySource(user, message, customId, opts.channelId);
      return dispatch(buildComponent(payloadContext(), user, customId, source, undefined, opts));
    },
    select(user, customId, values, message, opts = {}) {
      const source = message
        ? bySource(user, message, customId, opts.channelId)
        : deps.postMessage(opts.channelId ?? deps.defaultChannelId(), {
            content: "(message sent earlier)",
            components: [
              {
                type: 1,
                components: [
                  { type: 3, custom_id: customId, options: values.map((v) => ({ label: v, value: v })) },
                ],
              },
            ],
          });
      return dispatch(buildComponent(payloadContext(), user, customId, source, values, opts));
    },
    modalSubmit(user, customId, fields, opts = {}) {
      return dispatch(buildModalSubmit(payloadContext(), user, customId, fields, opts));
    },
  };
}
