// The command-module contract: the definition as typed data drives registration AND typed options,
// handlers declare their deferral, components and modals are keyed by custom-id action.
import type {
  ApplicationCommandOptionType,
  AutocompleteInteraction,
  ChatInputCommandInteraction,
  MessageComponentInteraction,
  ModalBuilder,
  ModalSubmitInteraction,
  PermissionsBitField,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from "discord.js";
import type { z } from "zod";
import { UserFacingError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { CustomId } from "./customId.ts";
import type { BotDeps } from "./deps.ts";
import type { InstallContext } from "./install.ts";
import type { OptionsReader, AnyOption } from "./options.ts";
import type { ComponentDeferMode, DeferMode, MessageUpdate, Reply } from "./reply.ts";

export type CommandDefinition = RESTPostAPIChatInputApplicationCommandsJSONBody;

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * What `defineCommand` accepts: Discord's definition shape, also in its `as const` (readonly) form,
 * so option pieces declared elsewhere with `as const` compose without casts.
 */
export type CommandDefinitionInput = DeepReadonly<CommandDefinition>;

export interface Actor {
  readonly id: string;
  readonly username: string;
}

export interface BaseContext {
  readonly user: Actor;
  /** Undefined in DMs. */
  readonly guildId: string | undefined;
  readonly channelId: string | undefined;
  readonly locale: string;
  /** The member's permissions in this channel; undefined in DMs. */
  readonly memberPermissions: Readonly<PermissionsBitField> | undefined;
  /** How the app is installed here (server, the user's account) and whether it may post publicly. */
  readonly install: InstallContext;
  readonly deps: BotDeps;
  /** Child logger bound to the interaction id, user and command. */
  readonly log: Logger;
  /** Answers by state: reply, edit of the deferral, or follow-up. */
  reply(reply: Reply): Promise<void>;
  /** Always a new message after the first answer. */
  followUp(reply: Reply): Promise<void>;
  /** A custom id owned by the acting user, for buttons, menus and modals. */
  customId(action: string, subject?: string, opts?: { ttlMs?: number }): string;
}

export interface CommandContext<Os extends readonly AnyOption[] = readonly AnyOption[]> extends BaseContext {
  /** "link" or "offer make"; "" for a command without subcommands. */
  readonly path: string;
  readonly options: OptionsReader<Os>;
  /** Only for handlers with `defer: false` (a modal must be the first answer). */
  showModal(modal: ModalBuilder): Promise<void>;
  readonly interaction: ChatInputCommandInteraction;
}

export interface ComponentContext extends BaseContext {
  readonly id: CustomId;
  /** Selected values for select menus; [] for buttons. */
  readonly values: readonly string[];
  readonly messageId: string;
  /** Edits the message the component is on (update, or edit after an "update" deferral). */
  update(update: MessageUpdate): Promise<void>;
  /** Only for handlers with `defer: false`. */
  showModal(modal: ModalBuilder): Promise<void>;
  readonly interaction: MessageComponentInteraction;
}

export interface ModalContext extends BaseContext {
  readonly id: CustomId;
  /** The message the modal was opened from, if any (then `update` edits it). */
  readonly messageId: string | undefined;
  update(update: MessageUpdate): Promise<void>;
  readonly interaction: ModalSubmitInteraction;
}

export interface AutocompleteContext {
  readonly user: Actor;
  readonly guildId: string | undefined;
  readonly path: string;
  readonly focused: { readonly name: string; readonly value: string };
  readonly deps: BotDeps;
  readonly log: Logger;
  /** Aborted when the autocomplete budget runs out: pass it on to slow work. */
  readonly signal: AbortSignal;
  readonly interaction: AutocompleteInteraction;
}

export interface Choice {
  readonly name: string;
  readonly value: string | number;
}

export interface CommandHandler<Os extends readonly AnyOption[] = readonly AnyOption[]> {
  readonly defer: DeferMode;
  /**
   * Synchronous input checks run BEFORE the deferral: a public command with bad input then
   * answers only privately, with no "thinking…" placeholder shown to the channel first.
   */
  validate?(ctx: CommandContext<Os>): void;
  run(ctx: CommandContext<Os>): Promise<Reply | void>;
}

export interface ComponentHandler {
  readonly defer: ComponentDeferMode;
  /** Default true: anyone but the id's owner is refused before anything happens. */
  readonly ownerOnly?: boolean;
  run(ctx: ComponentContext): Promise<Reply | void>;
}

/** A modal handler with its inputs already parsed (see `modal()`). */
export interface ModalHandler {
  readonly defer: ComponentDeferMode;
  readonly ownerOnly?: boolean;
  handle(ctx: ModalContext, inputs: Readonly<Record<string, string>>): Promise<Reply | void>;
}

/** Declares a modal handler whose text inputs are parsed with zod before `run` sees them. */
export function modal<S extends z.ZodType<Record<string, unknown>, Record<string, string>>>(spec: {
  readonly defer: ComponentDeferMode;
  readonly ownerOnly?: boolean;
  readonly fields: S;
  run(ctx: ModalContext, fields: z.output<S>): Promise<Reply | void>;
}): ModalHandler {
  return {
    defer: spec.defer,
    ...(spec.ownerOnly === undefined ? {} : { ownerOnly: spec.ownerOnly }),
    async handle(ctx, inputs) {
      const parsed = spec.fields.safeParse(inputs);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => {
          // A field every form of ours carries is absent: a forged or outdated form, not a typo.
          const missing = i.path.length > 0 && inputs[String(i.path[0])] === undefined;
          const text = missing ? "is missing from the form; open it again" : i.message;
          return i.path.length > 0 ? `\`${i.path.join(".")}\`: ${text}` : text;
        });
        throw new UserFacingError("invalid_input", problems.join("\n"), { modal: ctx.id.action });
      }
      return spec.run(ctx, parsed.data);
    },
  };
}

// ---- typed paths and options from the definition ------------------------------------------

type Sub = ApplicationCommandOptionType.Subcommand;
type Group = ApplicationCommandOptionType.SubcommandGroup;

type OptionsOf<T> = T extends { readonly options: infer O extends readonly AnyOption[] } ? O : readonly [];

type PathOf<O> = O extends { readonly type: Sub; readonly name: infer N extends string }
  ? N
  : O extends {
        readonly type: Group;
        readonly name: infer G extends string;
        readonly options: readonly (infer S)[];
      }
    ? S extends { readonly type: Sub; readonly name: infer N extends string }
      ? `${G} ${N}`
      : never
    : never;

/** "link" | "unlink" | "offer make" ... ; never for a command without subcommands. */
export type SubcommandPath<D> = PathOf<OptionsOf<D>[number]>;

type Named<Os extends readonly AnyOption[], N> = Extract<Os[number], { readonly name: N }>;

/** The options a handler at `P` receives. */
export type LeafOptions<D, P extends string> = P extends `${infer G} ${infer S}`
  ? OptionsOf<Named<OptionsOf<Named<OptionsOf<D>, G>>, S>>
  : OptionsOf<Named<OptionsOf<D>, P>>;

interface CommandSpecBase<D extends CommandDefinitionInput> {
  readonly definition: D;
  /** Suggestions for options declared with `autocomplete: true`; must be fast (budgeted). */
  autocomplete?(ctx: AutocompleteContext): Promise<readonly Choice[]>;
  readonly components?: Readonly<Record<string, ComponentHandler>>;
  readonly modals?: Readonly<Record<string, ModalHandler>>;
}

export type CommandSpec<D extends CommandDefinitionInput> = CommandSpecBase<D> &
  ([SubcommandPath<D>] extends [never]
    ? { readonly execute: CommandHandler<OptionsOf<D>> }
    : { readonly subcommands: { readonly [P in SubcommandPath<D>]: CommandHandler<LeafOptions<D, P>> } });

/** What the router and registration see: types erased, behaviour intact. */
export interface CommandModule {
  readonly name: string;
  readonly definition: CommandDefinition;
  /** The handler for "link" / "offer make" / "" (no subcommands). */
  handler(path: string): CommandHandler | undefined;
  /** Leaf option definitions at a path, for the options reader's required checks. */
  leafOptions(path: string): readonly AnyOption[];
  readonly autocomplete: ((ctx: AutocompleteContext) => Promise<readonly Choice[]>) | undefined;
  readonly components: Readonly<Record<string, ComponentHandler>>;
  readonly modals: Readonly<Record<string, ModalHandler>>;
}

export function defineCommand<const D extends CommandDefinitionInput>(spec: CommandSpec<D>): CommandModule {
  const handlers = new Map<string, CommandHandler>();
  if ("execute" in spec) {
    handlers.set("", spec.execute as unknown as CommandHandler);
  } else {
    // Erasing option types here is safe: the router builds each reader from the same definition.
    for (const [path, handler] of Object.entries(spec.subcommands as Record<string, CommandHandler>)) {
      handlers.set(path, handler);
    }
  }
  // Readonly and mutable forms are the same data; nothing downstream mutates a definition.
  const definition = spec.definition as CommandDefinition;
  const expected = subcommandPaths(definition);
  const missing = expected.filter((p) => !handlers.has(p));
  if (missing.length > 0) throw new Error(`/${definition.name}: no handler for ${missing.join(", ")}`);
  return {
    name: definition.name,
    definition,
    handler: (path) => handlers.get(path),
    leafOptions: (path) => leafOptionsAt(definition, path),
    autocomplete: spec.autocomplete?.bind(spec),
    components: spec.components ?? {},
    modals: spec.modals ?? {},
  };
}

const SUBCOMMAND = 1;
const SUBCOMMAND_GROUP = 2;

/** Every runnable path of a definition: "" when it has no subcommands. */
export function subcommandPaths(definition: CommandDefinition): string[] {
  const options = (definition.options ?? []) as readonly AnyOption[];
  const paths = options.flatMap((o) => {
    if (o.type === SUBCOMMAND) return [o.name];
    if (o.type === SUBCOMMAND_GROUP) {
      return (o.options ?? []).filter((s) => s.type === SUBCOMMAND).map((s) => `${o.name} ${s.name}`);
    }
    return [];
  });
  return paths.length > 0 ? paths : [""];
}

function leafOptionsAt(definition: CommandDefinition, path: string): readonly AnyOption[] {
  let options = (definition.options ?? []) as readonly AnyOption[];
  for (const part of path.split(" ").filter((p) => p !== "")) {
    options = options.find((o) => o.name === part)?.options ?? [];
  }
  return options;
}
