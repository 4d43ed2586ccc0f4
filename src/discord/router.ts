// The one interactionCreate router with the one error boundary: commands, autocomplete, buttons,
// select menus and modals. Expected failures become clear ephemeral notices; anything else is
// logged with context and the user gets an error id. It never throws, whatever Discord answers.
import { randomBytes } from "node:crypto";
import {
  DiscordAPIError,
  RESTJSONErrorCodes,
  type AnySelectMenuInteraction,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  type ModalSubmitInteraction,
  type RepliableInteraction,
} from "discord.js";
import { UserFacingError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AutocompleteContext, BaseContext, Choice } from "./command.ts";
import type { ComponentDeferMode } from "./reply.ts";
import { decodeCustomId, encodeCustomId, isExpired, type CustomId } from "./customId.ts";
import type { BotDeps } from "./deps.ts";
import { followUpWithDmNotice } from "./outbound/dmNotice.ts";
import { userNoticeFor } from "./errorMessages.ts";
import { installContextOf } from "./install.ts";
import { createOptionsReader, pathOf } from "./options.ts";
import type { CommandRegistry } from "./registry.ts";
import { notice } from "./render/embeds.ts";
import { Responder } from "./reply.ts";
import { forgetUserSuggestions } from "./suggest.ts";

export type InteractionKindLabel = "command" | "autocomplete" | "button" | "select" | "modal" | "other";
export type InteractionOutcome = "ok" | "user_error" | "market_error" | "error" | "expired" | "timeout";

export interface InteractionObservation {
  readonly kind: InteractionKindLabel;
  /** Command path ("account link") or custom-id action ("acct.unlink"): bounded cardinality. */
  readonly name: string;
  readonly outcome: InteractionOutcome;
  /** From Discord creating the interaction to our first accepted callback. */
  readonly firstResponseMs: number | undefined;
  readonly totalMs: number;
}

export interface RouterMetrics {
  observeInteraction(observation: InteractionObservation): void;
}

export interface RouterOptions {
  readonly registry: CommandRegistry;
  readonly deps: BotDeps;
  readonly logger: Logger;
  readonly metrics?: RouterMetrics;
  /** Time autocomplete handlers get before the router answers with no choices. Default 2000 ms. */
  readonly autocompleteBudgetMs?: number;
}

export interface Router {
  /** Handles one interaction; never rejects. */
  handle(interaction: Interaction): Promise<void>;
  /** Subscribes to the client's interactionCreate; returns the unsubscribe function. */
  attach(client: Client): () => void;
  /** Resolves when every interaction in progress has finished (for a clean shutdown). */
  drain(): Promise<void>;
}

export const GENERIC_FAILURE = (errorId: string) =>
  `Something went wrong (error id \`${errorId}\`). It has been logged; please try again later.`;

const NOT_OWNER = "This isn't yours — run the command yourself.";
const MALFORMED = (noun: string) =>
  `This ${noun} is damaged or from an old version of the bot; run the command again.`;
const EXPIRED = (noun: string) => `This ${noun} has expired; run the command again.`;
const UNSUPPORTED = (noun: string) => `This ${noun} is no longer supported; run the command again.`;

export function createRouter(options: RouterOptions): Router {
  const { registry, deps } = options;
  const log = options.logger.child({ module: "router" });
  const budgetMs = options.autocompleteBudgetMs ?? 2000;
  const inFlight = new Set<Promise<void>>();

  const baseContext = (i: RepliableInteraction, responder: Responder, ilog: Logger): BaseContext => ({
    user: { id: i.user.id, username: i.user.username },
    guildId: i.guildId ?? undefined,
    channelId: i.channelId ?? undefined,
    locale: i.locale,
    memberPermissions: i.memberPermissions ?? undefined,
    install: installContextOf(i),
    deps,
    log: ilog,
    reply: (r) => responder.reply(r),
    followUp: (r) => responder.followUp(r),
    customId: (action, subject = "", opts = {}) =>
      encodeCustomId({
        action,
        subject,
        owner: i.user.id,
        ...(opts.ttlMs === undefined ? {} : { expiresAt: deps.now().getTime() + opts.ttlMs }),
      }),
  });

  /** Answers anything the handler left hanging, so the user never sees "interaction failed". */
  const finish = async (
    responder: Responder,
    result: Awaited<ReturnType<typeof runCommand>>,
    ilog: Logger,
  ) => {
    if (result) {
      await responder.reply(result);
      return;
    }
    if (responder.awaitingAnswer) {
      ilog.warn("handler finished without answering; sent a plain acknowledgement");
      await responder.reply({ embeds: [notice("info", "Done.")], ephemeral: true });
    }
  };

  const runCommand = async (i: ChatInputCommandInteraction, responder: Responder, ilog: Logger) => {
    const module = registry.command(i.commandName);
    const path = pathOf(i.options.data);
    const handler = module?.handler(path);
    if (!module || !handler) {
      throw new UserFacingError(
        "not_found",
        "This command is not available anymore; it may have just been updated.",
      );
    }
    const ctx = {
      ...baseContext(i, responder, ilog),
      path,
      options: createOptionsReader(i.options.data, module.leafOptions(path)),
      showModal: (m: Parameters<Responder["showModal"]>[0]) => responder.showModal(m),
      interaction: i,
    };
    handler.validate?.(ctx);
    await responder.defer(handler.defer);
    return handler.run(ctx);
  };

  /** Decodes and checks a custom id: malformed, unknown, not the owner's, expired — all refused. */
  const checkId = <H extends { readonly ownerOnly?: boolean }>(
    raw: string,
    userId: string,
    noun: string,
    lookup: (action: string) => { handler: H } | undefined,
  ): { id: CustomId; handler: H } => {
    const decoded = decodeCustomId(raw);
    if (!decoded.ok) throw new UserFacingError("invalid_input", MALFORMED(noun), { reason: "malformed" });
    const entry = lookup(decoded.id.action);
    if (!entry) throw new UserFacingError("invalid_input", UNSUPPORTED(noun), { action: decoded.id.action });
    if ((entry.handler.ownerOnly ?? true) && decoded.id.owner !== userId) {
      throw new UserFacingError("not_owner", NOT_OWNER, { action: decoded.id.action });
    }
    if (isExpired(decoded.id, deps.now().getTime())) {
      throw new UserFacingError("expired", EXPIRED(noun), { action: decoded.id.action });
    }
    return { id: decoded.id, handler: entry.handler };
  };

  const runComponent = async (
    i: ButtonInteraction | AnySelectMenuInteraction,
    responder: Responder,
    ilog: Logger,
  ) => {
    const noun = i.isButton() ? "button" : "menu";
    const { id, handler } = checkId(i.customId, i.user.id, noun, (a) => registry.component(a));
    await responder.defer(handler.defer);
    return handler.run({
      ...baseContext(i, responder, ilog),
      id,
      values: i.isAnySelectMenu() ? [...i.values] : [],
      messageId: i.message.id,
      update: (u) => responder.update(u),
      showModal: (m) => responder.showModal(m),
      interaction: i,
    });
  };

  const runModal = async (i: ModalSubmitInteraction, responder: Responder, ilog: Logger) => {
    const { id, handler } = checkId(i.customId, i.user.id, "form", (a) => registry.modal(a));
    const inputs: Record<string, string> = {};
    for (const [customId, field] of i.fields.fields) {
      if ("value" in field && typeof field.value === "string") inputs[customId] = field.value;
    }
    const defer: ComponentDeferMode =
      handler.defer === "update" && !i.isFromMessage() ? "ephemeral" : handler.defer;
    await responder.defer(defer);
    return handler.handle(
      {
        ...baseContext(i, responder, ilog),
        id,
        messageId: i.message?.id,
        update: (u) => responder.update(u),
        interaction: i,
      },
      inputs,
    );
  };

  const runAutocomplete = async (i: AutocompleteInteraction, ilog: Logger): Promise<InteractionOutcome> => {
    const module = registry.command(i.commandName);
    const focused = i.options.getFocused(true);
    if (!module?.autocomplete) {
      await i.respond([]);
      return "ok";
    }
    const controller = new AbortController();
    const ctx: AutocompleteContext = {
      user: { id: i.user.id, username: i.user.username },
      guildId: i.guildId ?? undefined,
      path: pathOf(i.options.data),
      focused: { name: focused.name, value: String(focused.value) },
      deps,
      log: ilog,
      signal: controller.signal,
      interaction: i,
    };
    let timer: NodeJS.Timeout | undefined;
    const work = module.autocomplete(ctx);
    const late = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), budgetMs);
    });
    let outcome: InteractionOutcome = "ok";
    let choices: readonly Choice[] = [];
    try {
      const result = await Promise.race([work, late]);
      if (result === "timeout") {
        outcome = "timeout";
        controller.abort();
        ilog.warn({ budgetMs }, "autocomplete ran out of time; answered with no choices");
        // The late result is dropped; a late failure must not become an unhandled rejection.
        work.catch((error: unknown) => ilog.debug({ err: error }, "late autocomplete failure"));
      } else {
        choices = result;
      }
    } catch (error) {
      const known = userNoticeFor(error);
      outcome = known?.outcome ?? "error";
      if (known) ilog.warn({ code: known.code }, "autocomplete failed; answered with no choices");
      else ilog.error({ err: error }, "autocomplete handler threw; answered with no choices");
    } finally {
      clearTimeout(timer);
    }
    await i.respond(
      choices.slice(0, 25).map((c) => ({
        name: c.name.length > 100 ? `${c.name.slice(0, 99)}…` : c.name,
        value: typeof c.value === "string" ? c.value.slice(0, 100) : c.value,
      })),
    );
    return outcome;
  };

  /** The error boundary: classify, log, tell the user; a failing answer is logged, never thrown. */
  const onError = async (
    i: RepliableInteraction,
    responder: Responder,
    error: unknown,
    ilog: Logger,
  ): Promise<InteractionOutcome> => {
    if (isExpiredInteraction(error)) {
      ilog.warn(
        { code: (error as DiscordAPIError).code, ageMs: Date.now() - i.createdTimestamp },
        "interaction expired or was already answered before the bot replied",
      );
      return "expired";
    }
    const known = userNoticeFor(error);
    let text: string;
    let outcome: InteractionOutcome;
    if (known) {
      const level = known.outcome === "market_error" ? "warn" : "info";
      ilog[level]({ code: known.code, ...contextOf(error) }, "interaction ended with a user-facing error");
      text = known.text;
      outcome = known.outcome;
    } else {
      const errorId = randomBytes(4).toString("hex").toUpperCase();
      ilog.error({ err: error, errorId }, "interaction handler failed");
      text = GENERIC_FAILURE(errorId);
      outcome = "error";
    }
    try {
      await responder.reply({ embeds: [notice(known?.tone ?? "error", text)], ephemeral: true });
    } catch (replyError) {
      ilog.warn({ err: replyError }, "could not tell the user about the failure");
    }
    return outcome;
  };

  const handle = async (i: Interaction): Promise<void> => {
    const startedAt = Date.now();
    const kind = kindOf(i);
    const name = nameOf(i);
    const ilog = log.child({
      interactionId: i.id,
      userId: i.user.id,
      ...(i.guildId ? { guildId: i.guildId } : {}),
      kind,
      name,
    });
    let firstAt: number | undefined;
    let outcome: InteractionOutcome = "ok";
    try {
      if (i.isAutocomplete()) {
        outcome = await runAutocomplete(i, ilog);
        firstAt = Date.now();
      } else if (i.isRepliable()) {
        const responder = new Responder(i, (at) => {
          firstAt = at;
        });
        // Where the app may not post publicly, "public" handlers answer privately (ADR 022).
        if (!installContextOf(i).publicAllowed) responder.keepPrivate();
        try {
          let result;
          if (i.isChatInputCommand()) result = await runCommand(i, responder, ilog);
          else if (i.isMessageComponent()) result = await runComponent(i, responder, ilog);
          else if (i.isModalSubmit()) result = await runModal(i, responder, ilog);
          else ilog.debug("ignored an interaction kind the bot does not register");
          await finish(responder, result, ilog);
        } catch (error) {
          outcome = await onError(i, responder, error, ilog);
        } finally {
          // What the user just did may have made an order, a bid or a trade: suggest afresh.
          forgetUserSuggestions(deps, i.user.id);
        }
        await followUpWithDmNotice(deps, responder, i.user.id, ilog);
      }
    } catch (error) {
      // Only autocomplete's respond() can land here (an expired token, a network failure).
      outcome = isExpiredInteraction(error) ? "expired" : "error";
      ilog.warn({ err: error }, "could not answer the interaction");
    }
    const totalMs = Date.now() - startedAt;
    const firstResponseMs = firstAt === undefined ? undefined : Math.max(0, firstAt - i.createdTimestamp);
    ilog.debug({ outcome, firstResponseMs, totalMs }, "interaction handled");
    try {
      options.metrics?.observeInteraction({ kind, name, outcome, firstResponseMs, totalMs });
    } catch (error) {
      ilog.warn({ err: error }, "metrics hook failed");
    }
  };

  return {
    handle(interaction) {
      const run = handle(interaction).catch((error: unknown) => {
        log.error({ err: error, interactionId: interaction.id }, "router failed outside the error boundary");
      });
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
      return run;
    },
    attach(client) {
      const listener = (interaction: Interaction) => void this.handle(interaction);
      client.on("interactionCreate", listener);
      return () => client.off("interactionCreate", listener);
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

function isExpiredInteraction(error: unknown): boolean {
  return (
    error instanceof DiscordAPIError &&
    (error.code === RESTJSONErrorCodes.UnknownInteraction ||
      error.code === RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged)
  );
}

function contextOf(error: unknown): Record<string, unknown> {
  if (error instanceof UserFacingError) return error.context;
  if (error instanceof Error && "endpoint" in error) {
    const e = error as Error & { endpoint: unknown; status?: unknown; kind?: unknown };
    return { endpoint: e.endpoint, status: e.status, kind: e.kind };
  }
  return {};
}

function kindOf(i: Interaction): InteractionKindLabel {
  if (i.isChatInputCommand()) return "command";
  if (i.isAutocomplete()) return "autocomplete";
  if (i.isButton()) return "button";
  if (i.isAnySelectMenu()) return "select";
  if (i.isModalSubmit()) return "modal";
  return "other";
}

/** A bounded label for logs and metrics: never the subject or owner of a custom id. */
function nameOf(i: Interaction): string {
  if (i.isChatInputCommand() || i.isAutocomplete()) {
    return `${i.commandName} ${pathOf(i.options.data)}`.trim();
  }
  if (i.isMessageComponent() || i.isModalSubmit()) {
    const decoded = decodeCustomId(i.customId);
    return decoded.ok ? decoded.id.action : "(malformed)";
  }
  return "other";
}
