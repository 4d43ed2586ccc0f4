// The page's API over the local Discord: bootstrap (users, channels), the commands a user is offered,
// messages, installs, and interactions (command, autocomplete, component, modal) sent as the user.
import type { IncomingMessage } from "node:http";
import { ApplicationCommandOptionType, ChannelType, InteractionContextType } from "discord.js";
import { z } from "zod";
import {
  memberPermissions,
  type DiscordDouble,
  type DoubleUser,
  type InteractionHandle,
  type InteractionResponse,
  type RegisteredCommand,
  type StoredMessage,
} from "./discord/index.ts";
import { findVisibleMessage, HttpFailure, Id, readJson, UserRef } from "./pageHttp.ts";
import { isVisibleTo, messageView, userView } from "./view.ts";

/** Discord gives a bot 3 s to answer; the page waits a little longer before saying it did not. */
const FIRST_RESPONSE_MS = 3500;

const OptionValue = z.union([z.string().max(6000), z.number().finite(), z.boolean()]);
const OptionsByName = z.record(z.string().max(32), OptionValue);

const CommandBody = z.object({
  user: UserRef,
  channelId: Id,
  /** "watch add" */
  path: z.string().min(1).max(100),
  options: OptionsByName.default({}),
});
const AutocompleteBody = CommandBody.extend({ focused: z.string().min(1).max(32) });
const ComponentBody = z.object({
  user: UserRef,
  messageId: Id,
  customId: z.string().min(1).max(100),
  values: z.array(z.string().max(100)).max(25).optional(),
});
const ModalBody = z.object({
  user: UserRef,
  customId: z.string().min(1).max(100),
  fields: z.record(z.string().max(100), z.string().max(4000)),
});
const TextMessageBody = z.object({
  user: UserRef,
  channelId: Id,
  content: z.string().trim().min(1).max(2000),
});
const InstallBody = z.object({ user: UserRef, installed: z.boolean() });

export interface ChatApiDeps {
  readonly double: DiscordDouble;
  readonly humanUser: (ref: string) => DoubleUser;
  /** Whether a sandbox runs here (the page then shows its panel). */
  readonly sandbox: boolean;
}

/** Answers one of the page's Discord routes ("METHOD /path"); `q` reads the query string. */
export function createChatApi(
  deps: ChatApiDeps,
): (route: string, req: IncomingMessage, q: (name: string) => string) => Promise<unknown> {
  const { double, humanUser } = deps;
  const visibleMessage = (user: DoubleUser, id: string): StoredMessage =>
    findVisibleMessage(double, user, id);

  /** Where an interaction from the page happens: in a guild channel, or in the user's DM with the bot. */
  const placeOf = (user: DoubleUser, channelId: string) => {
    if (channelId === double.openDm(user.id)) return { dm: true } as const;
    if (!double.guilds.some((g) => g.channels.some((c) => c.id === channelId))) {
      throw new HttpFailure(404, "unknown channel");
    }
    return { channelId } as const;
  };

  /**
   * The commands this user can see here: guild commands shadow global ones, installs, contexts and
   * permissions apply (a server without the bot offers commands only to account installs).
   */
  const commandsFor = (user: DoubleUser, channelId: string): RegisteredCommand[] => {
    const dm = channelId === double.openDm(user.id);
    const guild = dm
      ? undefined
      : (double.guilds.find((g) => g.channels.some((c) => c.id === channelId)) ?? double.guild);
    const byName = new Map<string, RegisteredCommand>();
    for (const c of double.registeredCommands()) byName.set(c.name, c);
    if (guild) for (const c of double.registeredCommands(guild.id)) byName.set(c.name, c);
    const perms = guild ? memberPermissions(guild, user.id) : 0n;
    return [...byName.values()]
      .filter((c) => c.type === 1)
      .filter((c) => double.offers(user, c, dm ? { dm: true } : { channelId }))
      .filter((c) => {
        const contexts = Array.isArray(c.contexts) ? (c.contexts as number[]) : undefined;
        const context = dm ? InteractionContextType.BotDM : InteractionContextType.Guild;
        return contexts === undefined || contexts.includes(context);
      })
      .filter((c) => {
        if (dm || typeof c.default_member_permissions !== "string") return true;
        const needed = BigInt(c.default_member_permissions);
        return (perms & needed) === needed;
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  };

  /** Converts the page's values to what each option's type expects (numbers arrive as text from inputs). */
  const typedOptions = (
    user: DoubleUser,
    channelId: string,
    path: string,
    raw: Record<string, string | number | boolean>,
    focused?: string,
  ): Record<string, string | number | boolean> => {
    const [top, ...subs] = path.trim().split(/\s+/);
    let defs = (commandsFor(user, channelId).find((c) => c.name === top)?.options ?? []) as OptionDef[];
    for (const sub of subs) defs = defs.find((d) => d.name === sub)?.options ?? [];
    const out: Record<string, string | number | boolean> = {};
    for (const [name, value] of Object.entries(raw)) {
      const def = defs.find((d) => d.name === name);
      if (!def || name === focused) {
        out[name] = value;
        continue;
      }
      out[name] = coerce(def, value);
    }
    return out;
  };

  /** Sends an interaction and waits for the bot's first answer, as Discord's client does. */
  const firstAnswer = async (handle: InteractionHandle) => {
    let response: InteractionResponse;
    try {
      response = await handle.firstResponse(FIRST_RESPONSE_MS);
    } catch {
      return { ok: false, error: "The application did not respond" };
    }
    return { ok: true, interactionId: handle.id, type: response.type, data: response.data ?? null };
  };

  const bootstrap = () => ({
    bot: userView(double.botUser),
    users: double.users.map((u) => ({ ...userView(u), dmChannelId: double.openDm(u.id) })),
    guild: {
      id: double.guild.id,
      name: double.guild.name,
      channels: double.guild.channels.map((c) => ({
        id: c.id,
        name: c.name,
        type: c.type === ChannelType.GuildText || c.type === ChannelType.GuildAnnouncement ? "text" : "other",
      })),
      roles: double.guild.roles.map((r) => ({ id: r.id, name: r.name })),
    },
    defaultChannelId: double.channelId,
    sandbox: deps.sandbox,
    /** Servers without the bot: usable only "installed to my account" (web/install.js). */
    elsewhere: double.guilds.slice(1).map((g) => ({
      id: g.id,
      name: g.name,
      channels: g.channels
        .filter((c) => c.type === ChannelType.GuildText)
        .map((c) => ({ id: c.id, name: c.name })),
    })),
  });

  return async (route, req, q) => {
    switch (route) {
      case "GET /api/bootstrap":
        return bootstrap();
      case "GET /api/commands": {
        const user = humanUser(q("user"));
        return { commands: commandsFor(user, Id.parse(q("channelId"))) };
      }
      case "GET /api/messages": {
        const user = humanUser(q("user"));
        const channelId = Id.parse(q("channelId"));
        return {
          messages: double
            .messagesIn(channelId)
            .filter((m) => isVisibleTo(double, m, user))
            .map((m) => messageView(double, m)),
        };
      }
      case "POST /api/messages": {
        const body = TextMessageBody.parse(await readJson(req));
        const user = humanUser(body.user);
        const place = placeOf(user, body.channelId);
        const channelId = "dm" in place ? double.openDm(user.id) : body.channelId;
        return {
          message: messageView(double, double.postMessage(channelId, { content: body.content }, user)),
        };
      }
      case "POST /api/interactions/command": {
        const body = CommandBody.parse(await readJson(req));
        const user = humanUser(body.user);
        const options = typedOptions(user, body.channelId, body.path, body.options);
        return firstAnswer(double.slash(user, body.path, options, placeOf(user, body.channelId)));
      }
      case "POST /api/interactions/autocomplete": {
        const body = AutocompleteBody.parse(await readJson(req));
        const user = humanUser(body.user);
        const options = typedOptions(user, body.channelId, body.path, body.options, body.focused);
        const handle = double.autocomplete(
          user,
          body.path,
          options,
          body.focused,
          placeOf(user, body.channelId),
        );
        const answer = await firstAnswer(handle);
        const choices = answer.ok && answer.type === 8 ? (answer.data as { choices?: unknown })?.choices : [];
        return { ok: answer.ok, choices: Array.isArray(choices) ? choices : [] };
      }
      case "POST /api/interactions/component": {
        const body = ComponentBody.parse(await readJson(req));
        const user = humanUser(body.user);
        const message = visibleMessage(user, body.messageId);
        const handle =
          body.values === undefined
            ? double.button(user, body.customId, message)
            : double.select(user, body.customId, body.values, message);
        return firstAnswer(handle);
      }
      case "POST /api/interactions/modal": {
        const body = ModalBody.parse(await readJson(req));
        return firstAnswer(double.modalSubmit(humanUser(body.user), body.customId, body.fields));
      }
      case "GET /api/installs":
        return { installed: double.hasAccountInstall(humanUser(q("user")).id) };
      case "POST /api/installs": {
        const body = InstallBody.parse(await readJson(req));
        double.setAccountInstall(humanUser(body.user).id, body.installed);
        return { installed: body.installed };
      }
      default:
        throw new HttpFailure(404, "not found");
    }
  };
}

interface OptionDef {
  readonly name: string;
  readonly type: number;
  readonly options?: OptionDef[];
}

function coerce(def: OptionDef, value: string | number | boolean): string | number | boolean {
  const T = ApplicationCommandOptionType;
  switch (def.type) {
    case T.Integer:
    case T.Number: {
      const n = typeof value === "number" ? value : Number(String(value).trim());
      if (String(value).trim() === "" || !Number.isFinite(n)) {
        throw new HttpFailure(400, `option "${def.name}" needs a number`);
      }
      if (def.type === T.Integer && !Number.isInteger(n)) {
        throw new HttpFailure(400, `option "${def.name}" needs a whole number`);
      }
      return n;
    }
    case T.Boolean:
      return value === true || value === "true";
    default:
      return String(value);
  }
}
