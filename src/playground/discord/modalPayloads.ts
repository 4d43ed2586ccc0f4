// Builds the MODAL_SUBMIT a user sends: answers in the shape the bot's modal was shown in, checked as
// Discord's client checks them, from the channel (and message) the modal came from.
import { ComponentType, InteractionType } from "discord.js";
import { inheritedOwners } from "./installs.ts";
import {
  basePayload,
  recordInteraction,
  resolveTarget,
  type BuiltInteraction,
  type DispatchOptions,
  type PayloadContext,
} from "./interactions.ts";
import type { DoubleUser } from "./model.ts";
import type { ChannelInfo, InteractionRecord, World } from "./world.ts";

/** The modal a bot showed with this custom_id, and the interaction it answered. */
export function findShownModal(
  world: World,
  userId: string,
  customId: string,
): { modal: Record<string, unknown>; from: InteractionRecord } | undefined {
  const records = [...world.interactions.values()].reverse();
  for (const rec of records) {
    if (rec.user.id !== userId) continue;
    const shown = rec.responses.find((r) => r.type === 9 && r.data?.custom_id === customId);
    if (shown?.data) return { modal: shown.data, from: rec };
  }
  return undefined;
}

export function buildModalSubmit(
  ctx: PayloadContext,
  user: DoubleUser,
  customId: string,
  fields: Readonly<Record<string, string>>,
  opts: DispatchOptions,
): BuiltInteraction {
  const shown = findShownModal(ctx.world, user.id, customId);
  const source = shown?.from.sourceMessageId ? ctx.world.messages.get(shown.from.sourceMessageId) : undefined;
  const target =
    shown && !opts.channelId && !opts.dm
      ? {
          guild: shown.from.guildId ? ctx.world.guilds.get(shown.from.guildId) : undefined,
          channel: ctx.world.channels.get(shown.from.channelId) as ChannelInfo,
        }
      : resolveTarget(ctx, user, opts);
  const components = shown ? mirrorModal(shown.modal, fields) : actionRows(fields);
  const owners = inheritedOwners(ctx.world, shown?.from.id);
  const payload: Record<string, unknown> = {
    ...basePayload(ctx, InteractionType.ModalSubmit, user, target, opts, undefined, owners),
    data: { custom_id: customId, components },
  };
  if (source) payload.message = ctx.world.messageJson(source, "");
  return recordInteraction(
    ctx,
    payload,
    { kind: "modal", user, target, customId, ...(source ? { sourceMessageId: source.id } : {}) },
    opts,
  );
}

function actionRows(fields: Readonly<Record<string, string>>): unknown[] {
  return Object.entries(fields).map(([custom_id, value]) => ({
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.TextInput, custom_id, value }],
  }));
}

interface TextInputDef {
  custom_id: string;
  required?: boolean;
  min_length?: number;
  max_length?: number;
}

/**
 * Answers in the shape the modal was shown in (labels or action rows), enforcing what Discord's
 * client enforces before a user can press Submit (required, min/max length, known fields).
 */
function mirrorModal(modal: Record<string, unknown>, fields: Readonly<Record<string, string>>): unknown[] {
  const rows = Array.isArray(modal.components) ? (modal.components as Record<string, unknown>[]) : [];
  const seen = new Set<string>();
  const answer = (input: TextInputDef) => {
    const value = fields[input.custom_id] ?? "";
    seen.add(input.custom_id);
    if ((input.required ?? true) && value === "") {
      throw new Error(`modal field "${input.custom_id}" is required`);
    }
    if (value !== "" && input.min_length !== undefined && value.length < input.min_length) {
      throw new Error(`modal field "${input.custom_id}" needs at least ${input.min_length} characters`);
    }
    if (input.max_length !== undefined && value.length > input.max_length) {
      throw new Error(`modal field "${input.custom_id}" allows at most ${input.max_length} characters`);
    }
    return { type: ComponentType.TextInput, custom_id: input.custom_id, value };
  };
  const out = rows.map((row) => {
    if (row.type === ComponentType.Label && row.component && typeof row.component === "object") {
      const inner = row.component as TextInputDef & { type: number };
      return { type: ComponentType.Label, id: row.id, component: answer(inner) };
    }
    const inner = Array.isArray(row.components)
      ? (row.components as (TextInputDef & { type: number })[])
      : [];
    return { type: ComponentType.ActionRow, components: inner.map(answer) };
  });
  for (const key of Object.keys(fields)) {
    if (!seen.has(key)) throw new Error(`the modal has no field "${key}"`);
  }
  return out;
}
