// REST routes of the local Discord (below /api/v10): what a bot calls, with Discord's answers and error codes.
import { z } from "zod";
import { ChannelType } from "discord.js";
import type { ParsedBody, RestResult, UploadedFile } from "./http.ts";
import { apiUser, MessageFlag, type StoredMessage } from "./model.ts";
import {
  AutocompleteData,
  CommandList,
  DiscordApiFailure,
  MessageBody,
  ModalData,
  parseOrFail,
} from "./validation.ts";
import { ACCOUNT_INSTALL_FOLLOW_UPS, accountInstallOnly, answerFlags, botCanPost } from "./installs.ts";
import { channelSendBudget, globalRequestLimit, type GlobalLimit, type SendBudget } from "./rateLimits.ts";
import { WEBHOOK_TOKEN_TTL_MS, type InteractionRecord, type World } from "./world.ts";

/** How long Discord remembers an enforced nonce ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

export interface RestRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: ParsedBody;
  readonly authorized: boolean;
}

export interface RestContext {
  readonly world: World;
  readonly baseUrl: () => string;
  readonly gatewayUrl: () => string;
  readonly maxConcurrency: number;
  readonly sendBudget: () => SendBudget | undefined;
  /** The bot's global limit on authenticated requests; undefined: none. */
  readonly globalLimit: () => GlobalLimit | undefined;
}

type Handler = (req: RestRequest, params: string[]) => RestResult | Promise<RestResult>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly auth: boolean;
  readonly handler: Handler;
}

const ID = "(\\d+)";
const ANY = "([^/]+)";

export function createRest(ctx: RestContext): (req: RestRequest) => Promise<RestResult> {
  const { world } = ctx;
  const sendBudget = channelSendBudget(ctx.sendBudget);
  const globalLimit = globalRequestLimit(ctx.globalLimit);

  const json = (body: unknown, headers?: Record<string, string>): RestResult =>
    headers ? { status: 200, body, headers } : { status: 200, body };

  const channelOr404 = (id: string) => {
    const channel = world.channels.get(id);
    if (!channel) throw new DiscordApiFailure(404, 10003, "Unknown Channel");
    return channel;
  };

  const messageOr404 = (channelId: string, id: string): StoredMessage => {
    const message = world.messages.get(id);
    if (!message || message.deleted || message.channelId !== channelId) {
      throw new DiscordApiFailure(404, 10008, "Unknown Message");
    }
    return message;
  };

  const interactionByWebhook = (app: string, token: string): InteractionRecord => {
    const record = world.interactionsByToken.get(token);
    if (app !== world.applicationId || !record) throw new DiscordApiFailure(404, 10015, "Unknown Webhook");
    if (Date.now() - record.expiresAt > WEBHOOK_TOKEN_TTL_MS) {
      throw new DiscordApiFailure(401, 50027, "Invalid Webhook Token");
    }
    return record;
  };

  const webhookMessage = (record: InteractionRecord, id: string): StoredMessage => {
    const messageId = id === "@original" ? record.originalMessageId : id;
    const allowed = messageId === record.originalMessageId || record.followUpIds.includes(messageId ?? "");
    const message = messageId && allowed ? world.messages.get(messageId) : undefined;
    if (!message || message.deleted) throw new DiscordApiFailure(404, 10008, "Unknown Message");
    return message;
  };

  const messageBody = (body: ParsedBody) => parseOrFail(MessageBody, body.json ?? {});
  /** Nonces sent with enforce_nonce, per bot (the only author here): nonce -> first message. */
  const nonces = new Map<string, { messageId: string; at: number }>();

  const callback: Handler = (req, [id = "", token = ""]) => {
    const record = world.interactions.get(id);
    const refuse = (status: number, code: number, message: string) => {
      if (record) record.rejectedCallbacks.push({ status, code, at: Date.now() });
      world.changed();
      return new DiscordApiFailure(status, code, message);
    };
    if (!record || record.token !== token || Date.now() > record.expiresAt) {
      throw refuse(404, 10062, "Unknown interaction");
    }
    if (record.responses.length > 0) throw refuse(400, 40060, "Interaction has already been acknowledged.");
    const body = parseOrFail(
      z.looseObject({ type: z.number().int(), data: z.unknown().optional() }),
      req.body.json,
    );
    const data = (body.data ?? undefined) as Record<string, unknown> | undefined;
    const fromMessage = record.sourceMessageId !== undefined;
    const notAllowed = () =>
      refuse(400, 40043, "Interaction response type is not valid for this interaction");
    switch (body.type) {
      case 4: {
        if (record.kind === "autocomplete") throw notAllowed();
        const reply = parseOrFail(MessageBody, data ?? {});
        const message = world.createMessage({
          channelId: record.channelId,
          author: world.bot,
          body: { ...reply, flags: answerFlags(world, record, reply.flags ?? 0) },
          files: req.body.files,
          interactionId: record.id,
          webhookId: world.applicationId,
        });
        record.originalMessageId = message.id;
        break;
      }
      case 5: {
        if (record.kind === "autocomplete") throw notAllowed();
        const flags = answerFlags(world, record, Number(data?.flags ?? 0) & MessageFlag.Ephemeral);
        const message = world.createMessage({
          channelId: record.channelId,
          author: world.bot,
          body: { flags },
          files: [],
          interactionId: record.id,
          webhookId: world.applicationId,
          loading: true,
        });
        record.originalMessageId = message.id;
        break;
      }
      case 6:
      case 7: {
        if (!fromMessage) throw notAllowed();
        record.originalMessageId = record.sourceMessageId;
        if (body.type === 7) {
          const source = world.messages.get(record.sourceMessageId ?? "");
          if (!source) throw refuse(404, 10008, "Unknown Message");
          world.editMessage(source, parseOrFail(MessageBody, data ?? {}), req.body.files);
        }
        break;
      }
      case 8:
        if (record.kind !== "autocomplete") throw notAllowed();
        parseOrFail(AutocompleteData, data);
        break;
      case 9:
        if (record.kind === "autocomplete" || record.kind === "modal") throw notAllowed();
        parseOrFail(ModalData, data);
        break;
      default:
        throw refuse(400, 50035, "Invalid Form Body");
    }
    world.recordResponse(record, {
      interactionId: record.id,
      type: body.type,
      data,
      elapsedMs: performance.now() - record.dispatchedAt,
      at: Date.now(),
    });
    if (req.query.get("with_response") === "true") {
      const original = record.originalMessageId ? world.messages.get(record.originalMessageId) : undefined;
      return json({
        interaction: {
          id: record.id,
          type: record.payload.type,
          activity_instance_id: null,
          response_message_id: original?.id ?? null,
          response_message_loading: original?.loading ?? false,
          response_message_ephemeral: original ? (original.flags & MessageFlag.Ephemeral) !== 0 : false,
        },
        resource: {
          type: body.type,
          ...(original ? { message: world.messageJson(original, ctx.baseUrl()) } : {}),
        },
      });
    }
    return { status: 204 };
  };

  const createInChannel = (channelId: string, body: ParsedBody): RestResult => {
    const channel = channelOr404(channelId);
    if (channel.type === ChannelType.DM && world.closedDms.has(channel.recipientId ?? "")) {
      throw new DiscordApiFailure(403, 50007, "Cannot send messages to this user");
    }
    // Outside its guilds and DMs (a server it is not in, other people's group DMs) the bot has no access.
    if (!botCanPost(world, channel)) throw new DiscordApiFailure(403, 50001, "Missing Access");
    const headers = sendBudget(channelId);
    // enforce_nonce: a repeated nonce within Discord's window returns the first message, no new one.
    const { nonce, enforce_nonce: enforce } = (body.json ?? {}) as {
      nonce?: unknown;
      enforce_nonce?: unknown;
    };
    const nonceKey =
      enforce === true && (typeof nonce === "string" || typeof nonce === "number")
        ? String(nonce)
        : undefined;
    const earlier = nonceKey === undefined ? undefined : nonces.get(nonceKey);
    const repeat =
      earlier && Date.now() - earlier.at < NONCE_WINDOW_MS
        ? world.messages.get(earlier.messageId)
        : undefined;
    if (repeat) return json(world.messageJson(repeat, ctx.baseUrl()), headers);
    const message = world.createMessage({
      channelId,
      author: world.bot,
      body: messageBody(body),
      files: body.files,
    });
    if (nonceKey !== undefined) nonces.set(nonceKey, { messageId: message.id, at: Date.now() });
    return json(world.messageJson(message, ctx.baseUrl()), headers);
  };

  const routes: Route[] = [];
  const route = (method: string, path: string, handler: Handler, auth = true) =>
    routes.push({ method, pattern: new RegExp(`^${path}/?$`), auth, handler });

  route("GET", "/gateway/bot", () =>
    json({
      url: ctx.gatewayUrl(),
      shards: 1,
      session_start_limit: {
        total: 1000,
        remaining: 999,
        reset_after: 14_400_000,
        max_concurrency: ctx.maxConcurrency,
      },
    }),
  );
  route("GET", "/gateway", () => json({ url: ctx.gatewayUrl() }), false);
  route("GET", "/users/@me", () => json(apiUser(world.bot)));
  route("GET", `/users/${ID}`, (_req, [id = ""]) => {
    const user = world.users.get(id);
    if (!user) throw new DiscordApiFailure(404, 10013, "Unknown User");
    return json(apiUser(user));
  });
  route("GET", "/applications/@me", () =>
    json({
      id: world.applicationId,
      name: world.bot.username,
      description: "",
      bot_public: true,
      bot_require_code_grant: false,
      flags: 0,
      bot: apiUser(world.bot),
      verify_key: "0".repeat(64),
    }),
  );
  for (const scope of ["global", "guild"] as const) {
    const path =
      scope === "global" ? `/applications/${ID}/commands` : `/applications/${ID}/guilds/${ID}/commands`;
    const guildOf = (params: string[]) => (scope === "guild" ? params[1] : undefined);
    const checkApp = (app: string | undefined) => {
      if (app !== world.applicationId) throw new DiscordApiFailure(403, 50001, "Missing Access");
    };
    route("PUT", path, (req, params) => {
      checkApp(params[0]);
      const guildId = guildOf(params);
      if (guildId && !world.guilds.has(guildId)) throw new DiscordApiFailure(403, 50001, "Missing Access");
      const definitions = parseOrFail(CommandList, req.body.json);
      return json(world.overwriteCommands(guildId, definitions));
    });
    route("GET", path, (_req, params) => {
      checkApp(params[0]);
      const guildId = guildOf(params);
      return json(guildId ? (world.guildCommands.get(guildId) ?? []) : world.globalCommands);
    });
  }
  route("POST", `/interactions/${ID}/${ANY}/callback`, callback, false);
  route(
    "GET",
    `/webhooks/${ID}/${ANY}/messages/${ANY}`,
    (_req, [app = "", token = "", id = ""]) =>
      json(world.messageJson(webhookMessage(interactionByWebhook(app, token), id), ctx.baseUrl())),
    false,
  );
  route(
    "PATCH",
    `/webhooks/${ID}/${ANY}/messages/${ANY}`,
    (req, [app = "", token = "", id = ""]) => {
      const message = webhookMessage(interactionByWebhook(app, token), id);
      world.editMessage(message, messageBody(req.body), req.body.files);
      return json(world.messageJson(message, ctx.baseUrl()));
    },
    false,
  );
  route(
    "DELETE",
    `/webhooks/${ID}/${ANY}/messages/${ANY}`,
    (_req, [app = "", token = "", id = ""]) => {
      world.deleteMessage(webhookMessage(interactionByWebhook(app, token), id));
      return { status: 204 };
    },
    false,
  );
  route(
    "POST",
    `/webhooks/${ID}/${ANY}`,
    (req, [app = "", token = ""]) => {
      const record = interactionByWebhook(app, token);
      if (record.responses.length === 0) throw new DiscordApiFailure(404, 10015, "Unknown Webhook");
      if (accountInstallOnly(record) && record.followUpIds.length >= ACCOUNT_INSTALL_FOLLOW_UPS) {
        // Discord documents the limit, not its error code; the double answers a plain 400.
        throw new DiscordApiFailure(
          400,
          0,
          `An app installed only to the user may send ${ACCOUNT_INSTALL_FOLLOW_UPS} follow-ups per interaction`,
        );
      }
      const followUp = messageBody(req.body);
      const message = world.createMessage({
        channelId: record.channelId,
        author: world.bot,
        body: { ...followUp, flags: answerFlags(world, record, followUp.flags ?? 0) },
        files: req.body.files,
        interactionId: record.id,
        webhookId: world.applicationId,
      });
      record.followUpIds.push(message.id);
      world.changed();
      return req.query.get("wait") === "true"
        ? json(world.messageJson(message, ctx.baseUrl()))
        : { status: 204 };
    },
    false,
  );
  route("POST", "/users/@me/channels", (req) => {
    const body = parseOrFail(z.looseObject({ recipient_id: z.string() }), req.body.json);
    const user = world.users.get(body.recipient_id);
    if (!user || user.bot) throw new DiscordApiFailure(400, 50033, "Invalid Recipient(s)");
    return json(world.channelJson(world.dmChannelFor(user.id)));
  });
  route("GET", `/channels/${ID}`, (_req, [id = ""]) => json(world.channelJson(channelOr404(id))));
  route("POST", `/channels/${ID}/messages`, (req, [id = ""]) => createInChannel(id, req.body));
  route("GET", `/channels/${ID}/messages`, (req, [id = ""]) => {
    channelOr404(id);
    const limit = Math.min(100, Math.max(1, Number(req.query.get("limit") ?? 50) || 50));
    const newestFirst = world.messagesIn(id).reverse().slice(0, limit);
    return json(newestFirst.map((m) => world.messageJson(m, ctx.baseUrl())));
  });
  route("GET", `/channels/${ID}/messages/${ID}`, (_req, [channelId = "", id = ""]) =>
    json(world.messageJson(messageOr404(channelId, id), ctx.baseUrl())),
  );
  route("PATCH", `/channels/${ID}/messages/${ID}`, (req, [channelId = "", id = ""]) => {
    const message = messageOr404(channelId, id);
    if (message.author.id !== world.bot.id) {
      throw new DiscordApiFailure(403, 50005, "Cannot edit a message authored by another user");
    }
    world.editMessage(message, messageBody(req.body), req.body.files);
    return json(world.messageJson(message, ctx.baseUrl()));
  });
  route("DELETE", `/channels/${ID}/messages/${ID}`, (_req, [channelId = "", id = ""]) => {
    world.deleteMessage(messageOr404(channelId, id));
    return { status: 204 };
  });

  return async (req) => {
    for (const r of routes) {
      if (r.method !== req.method) continue;
      const match = r.pattern.exec(req.path);
      if (!match) continue;
      if (r.auth && !req.authorized) throw new DiscordApiFailure(401, 0, "401: Unauthorized");
      if (r.auth) globalLimit();
      return r.handler(req, match.slice(1));
    }
    throw new DiscordApiFailure(404, 0, "404: Not Found");
  };
}

export type { GlobalLimit, SendBudget, UploadedFile };
