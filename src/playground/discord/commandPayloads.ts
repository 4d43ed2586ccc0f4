// Builds the APPLICATION_COMMAND (slash) and APPLICATION_COMMAND_AUTOCOMPLETE a user sends: the command's
// path and options checked against its registered definition, with users, channels and roles resolved.
import { ApplicationCommandOptionType, InteractionType } from "discord.js";
import {
  basePayload,
  recordInteraction,
  resolveTarget,
  type BuiltInteraction,
  type DispatchOptions,
  type OptionValue,
  type PayloadContext,
  type SlashOptions,
  type Target,
} from "./interactions.ts";
import { apiUser, memberPermissions, type DoubleUser, type RegisteredCommand } from "./model.ts";
import { snowflake } from "./snowflake.ts";

export function buildSlash(
  ctx: PayloadContext,
  user: DoubleUser,
  path: string,
  options: SlashOptions,
  opts: DispatchOptions,
): BuiltInteraction {
  const target = resolveTarget(ctx, user, opts);
  const { data, command } = commandData(ctx, path, options, target, undefined);
  const payload = {
    ...basePayload(ctx, InteractionType.ApplicationCommand, user, target, opts, command),
    data,
  };
  return recordInteraction(ctx, payload, { kind: "command", user, target, commandPath: path.trim() }, opts);
}

export function buildAutocomplete(
  ctx: PayloadContext,
  user: DoubleUser,
  path: string,
  options: Readonly<Record<string, OptionValue>>,
  focused: string,
  opts: DispatchOptions,
): BuiltInteraction {
  const target = resolveTarget(ctx, user, opts);
  const { data, command } = commandData(ctx, path, options, target, focused);
  const payload = {
    ...basePayload(ctx, InteractionType.ApplicationCommandAutocomplete, user, target, opts, command),
    data,
  };
  return recordInteraction(
    ctx,
    payload,
    { kind: "autocomplete", user, target, commandPath: path.trim() },
    opts,
  );
}

interface OptionDef {
  readonly name: string;
  readonly type: number;
  readonly required?: boolean;
  readonly choices?: readonly { name: string; value: string | number }[];
  readonly options?: readonly OptionDef[];
}

/** Builds `data` for a slash command or an autocomplete from "name sub" and options by name. */
function commandData(
  ctx: PayloadContext,
  path: string,
  given: SlashOptions,
  target: Target,
  focused: string | undefined,
): { data: Record<string, unknown>; command: RegisteredCommand | undefined } {
  const [top = "", ...parts] = path.trim().split(/\s+/);
  let rest = parts;
  const command = ctx.world.findCommand(top, target.guild?.id);
  let options = given;
  if (Array.isArray(options)) {
    return { data: { id: command?.id ?? snowflake(), name: top, type: 1, options }, command };
  }
  if (!command) throw new Error(`/${top} is not registered with the double (register commands first)`);
  // Nested form: slash(u, "offer", { make: { listing: "1" } }) is slash(u, "offer make", { listing: "1" }).
  ({ rest, options } = unnest(command, rest, options));
  let defs = (command.options ?? []) as readonly OptionDef[];
  const chain: OptionDef[] = [];
  for (const part of rest) {
    const sub = defs.find(
      (d) =>
        d.name === part &&
        (d.type === ApplicationCommandOptionType.Subcommand ||
          d.type === ApplicationCommandOptionType.SubcommandGroup),
    );
    if (!sub) throw new Error(`/${path}: "${part}" is not a subcommand of /${top}`);
    chain.push(sub);
    defs = sub.options ?? [];
  }
  if (defs.some((d) => d.type === ApplicationCommandOptionType.Subcommand || d.type === 2)) {
    throw new Error(`/${path} needs a subcommand`);
  }
  const resolved = { users: {}, members: {}, channels: {}, roles: {} } as Record<
    string,
    Record<string, unknown>
  >;
  const leaf: Record<string, unknown>[] = [];
  for (const [name, raw] of Object.entries(options as Record<string, OptionValue>)) {
    const def = defs.find((d) => d.name === name);
    if (!def) throw new Error(`/${path} has no option "${name}"`);
    const isFocused = focused === name;
    leaf.push({
      name,
      type: def.type,
      value: isFocused
        ? String(raw)
        : optionValue(ctx, path, def, raw, target, resolved, focused !== undefined),
      ...(isFocused ? { focused: true } : {}),
    });
  }
  if (focused === undefined) {
    for (const def of defs) {
      if (def.required && !(def.name in options)) throw new Error(`/${path} requires option "${def.name}"`);
    }
  } else if (!(focused in options)) {
    throw new Error(`autocomplete on /${path}: focused option "${focused}" has no value`);
  }
  let nested: Record<string, unknown>[] = leaf;
  for (const sub of [...chain].reverse()) {
    nested = [{ name: sub.name, type: sub.type, options: nested }];
  }
  const hasResolved = Object.values(resolved).some((r) => Object.keys(r).length > 0);
  return {
    data: {
      id: command.id,
      name: top,
      type: 1,
      ...(nested.length > 0 ? { options: nested } : {}),
      ...(hasResolved ? { resolved: pruneEmpty(resolved) } : {}),
      ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    },
    command,
  };
}

function unnest(
  command: RegisteredCommand,
  path: string[],
  options: SlashOptions,
): { rest: string[]; options: SlashOptions } {
  let defs = (command.options ?? []) as readonly OptionDef[];
  for (const part of path) defs = defs.find((d) => d.name === part)?.options ?? [];
  const keys = Object.keys(options);
  const only = keys.length === 1 ? keys[0] : undefined;
  const sub = defs.find((d) => d.name === only && (d.type === 1 || d.type === 2));
  const inner = only === undefined ? undefined : (options as Record<string, unknown>)[only];
  if (!sub || inner === null || typeof inner !== "object" || Array.isArray(inner))
    return { rest: path, options };
  return unnest(command, [...path, sub.name], inner as Record<string, OptionValue>);
}

function optionValue(
  ctx: PayloadContext,
  path: string,
  def: OptionDef,
  raw: OptionValue,
  target: Target,
  resolved: Record<string, Record<string, unknown>>,
  partial: boolean,
): string | number | boolean {
  const fail = (why: string) => new Error(`/${path} option "${def.name}": ${why}`);
  const T = ApplicationCommandOptionType;
  let value: string | number | boolean;
  switch (def.type) {
    case T.String:
      if (typeof raw !== "string") throw fail("expects a string");
      value = raw;
      break;
    case T.Integer:
      if (typeof raw !== "number" || !Number.isInteger(raw)) throw fail("expects an integer");
      value = raw;
      break;
    case T.Number:
      if (typeof raw !== "number" || !Number.isFinite(raw)) throw fail("expects a number");
      value = raw;
      break;
    case T.Boolean:
      if (typeof raw !== "boolean") throw fail("expects a boolean");
      value = raw;
      break;
    case T.User:
    case T.Mentionable: {
      const id = typeof raw === "object" ? raw.id : String(raw);
      const user = ctx.world.users.get(id);
      if (user) {
        (resolved.users as Record<string, unknown>)[id] = apiUser(user);
        const member = target.guild?.members.find((m) => m.userId === id);
        if (member && target.guild) {
          (resolved.members as Record<string, unknown>)[id] = {
            roles: [...member.roles],
            permissions: String(memberPermissions(target.guild, id)),
            joined_at: new Date(Date.now() - 86_400_000).toISOString(),
            nick: member.nick ?? null,
            flags: 0,
            pending: false,
          };
        }
      } else if (def.type === T.User) {
        throw fail(`unknown user ${id}`);
      }
      value = id;
      break;
    }
    case T.Channel: {
      const channel = ctx.world.channels.get(String(raw));
      if (!channel) throw fail(`unknown channel ${String(raw)}`);
      const perms = target.guild ? memberPermissions(target.guild, ctx.world.bot.id) : 0n;
      (resolved.channels as Record<string, unknown>)[channel.id] = {
        id: channel.id,
        type: channel.type,
        name: channel.name,
        permissions: String(perms),
        ...(channel.parentId ? { parent_id: channel.parentId } : {}),
      };
      value = channel.id;
      break;
    }
    case T.Role: {
      const role = target.guild?.roles.find((r) => r.id === String(raw));
      if (!role) throw fail(`unknown role ${String(raw)}`);
      (resolved.roles as Record<string, unknown>)[role.id] = {
        id: role.id,
        name: role.name,
        permissions: String(role.permissions),
        color: 0,
        hoist: false,
        position: 1,
        managed: false,
        mentionable: false,
        flags: 0,
      };
      value = role.id;
      break;
    }
    default:
      throw fail(`option type ${def.type} is not supported by the double`);
  }
  if (!partial && def.choices && !def.choices.some((c) => c.value === value)) {
    throw fail(`${JSON.stringify(value)} is not one of its choices`);
  }
  return value;
}

function pruneEmpty(resolved: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resolved).filter(([, v]) => Object.keys(v).length > 0));
}
