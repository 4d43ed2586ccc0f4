// Typed access to slash-command options: names and types come from the command's definition.
import { ApplicationCommandOptionType, type CommandInteractionOption } from "discord.js";
import { invalidOption } from "../errors.ts";

/** The required `listing` option of the commands that act on one listing. */
export const LISTING_OPTION = {
  name: "listing",
  description: "Listing id (a number like 123456789)",
  type: ApplicationCommandOptionType.String,
  required: true,
  max_length: 24,
} as const;

/** The shape of any option in a definition (`as const` keeps names and types literal). */
export interface AnyOption {
  readonly name: string;
  readonly type: ApplicationCommandOptionType;
  readonly required?: boolean;
  readonly options?: readonly AnyOption[];
}

type T = typeof ApplicationCommandOptionType;
type NamesOf<Os extends readonly AnyOption[], K> = Extract<Os[number], { readonly type: K }>["name"];
type IsRequired<Os extends readonly AnyOption[], N> =
  Extract<Os[number], { readonly name: N }> extends { readonly required: true } ? true : false;
type Value<Os extends readonly AnyOption[], N, V> = IsRequired<Os, N> extends true ? V : V | undefined;

export interface OptionUser {
  readonly id: string;
  readonly username: string;
}
export interface OptionChannel {
  readonly id: string;
  readonly type: number;
  readonly name: string | undefined;
}
export interface OptionRole {
  readonly id: string;
  readonly name: string;
}
export interface OptionAttachment {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly size: number;
  readonly contentType: string | undefined;
}

/**
 * `opts.string("item")` only accepts names of string options at this subcommand; required
 * options come back without `undefined`. Values are plain data, never discord.js objects.
 */
export interface OptionsReader<Os extends readonly AnyOption[]> {
  string<N extends NamesOf<Os, T["String"]>>(name: N): Value<Os, N, string>;
  integer<N extends NamesOf<Os, T["Integer"]>>(name: N): Value<Os, N, number>;
  number<N extends NamesOf<Os, T["Number"]>>(name: N): Value<Os, N, number>;
  boolean<N extends NamesOf<Os, T["Boolean"]>>(name: N): Value<Os, N, boolean>;
  user<N extends NamesOf<Os, T["User"]>>(name: N): Value<Os, N, OptionUser>;
  channel<N extends NamesOf<Os, T["Channel"]>>(name: N): Value<Os, N, OptionChannel>;
  role<N extends NamesOf<Os, T["Role"]>>(name: N): Value<Os, N, OptionRole>;
  attachment<N extends NamesOf<Os, T["Attachment"]>>(name: N): Value<Os, N, OptionAttachment>;
}

/** The leaf options the user filled in (below any subcommand group and subcommand). */
export function leafValues(
  options: readonly CommandInteractionOption[],
): readonly CommandInteractionOption[] {
  const first = options[0];
  if (
    first &&
    (first.type === ApplicationCommandOptionType.Subcommand ||
      first.type === ApplicationCommandOptionType.SubcommandGroup)
  ) {
    return leafValues(first.options ?? []);
  }
  return options;
}

/** The subcommand path the user ran: "", "link" or "offer make". */
export function pathOf(options: readonly CommandInteractionOption[]): string {
  const first = options[0];
  if (first?.type === ApplicationCommandOptionType.SubcommandGroup) {
    return `${first.name} ${first.options?.[0]?.name ?? ""}`.trim();
  }
  if (first?.type === ApplicationCommandOptionType.Subcommand) return first.name;
  return "";
}

/** Builds a reader over the interaction's options, checked against the definition at that path. */
export function createOptionsReader<const Os extends readonly AnyOption[]>(
  given: readonly CommandInteractionOption[],
  defined: Os,
): OptionsReader<Os> {
  return untypedReader(given, defined) as unknown as OptionsReader<Os>;
}

interface UntypedReader {
  string(name: string): string | undefined;
  integer(name: string): number | undefined;
  number(name: string): number | undefined;
  boolean(name: string): boolean | undefined;
  user(name: string): OptionUser | undefined;
  channel(name: string): OptionChannel | undefined;
  role(name: string): OptionRole | undefined;
  attachment(name: string): OptionAttachment | undefined;
}

function untypedReader(
  given: readonly CommandInteractionOption[],
  defined: readonly AnyOption[],
): UntypedReader {
  const leaves = leafValues(given);
  const read = (name: string, type: ApplicationCommandOptionType): CommandInteractionOption | undefined => {
    const option = leaves.find((o) => o.name === name);
    const definition = defined.find((d) => d.name === name);
    if (!option) {
      if (definition?.required) throw invalidOption(name, "is required");
      return undefined;
    }
    if (option.type !== type) {
      // Registered commands out of date with the code: say so instead of crashing.
      throw invalidOption(name, "has an unexpected type; the command may have just been updated, try again");
    }
    return option;
  };
  const primitive = <V>(name: string, type: ApplicationCommandOptionType, guard: (v: unknown) => v is V) => {
    const value = read(name, type)?.value;
    if (value === undefined || guard(value)) return value;
    // Discord sends values of the declared type; anything else would break the reader's promise.
    throw invalidOption(name, "has an unexpected value; the command may have just been updated, try again");
  };
  const isString = (v: unknown): v is string => typeof v === "string";
  const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
  const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
  const T = ApplicationCommandOptionType;
  return {
    string: (name) => primitive(name, T.String, isString),
    integer: (name) => primitive(name, T.Integer, isNumber),
    number: (name) => primitive(name, T.Number, isNumber),
    boolean: (name) => primitive(name, T.Boolean, isBoolean),
    user: (name) => {
      const user = read(name, T.User)?.user;
      return user ? { id: user.id, username: user.username } : undefined;
    },
    channel: (name) => {
      const channel = read(name, T.Channel)?.channel;
      if (!channel) return undefined;
      return {
        id: channel.id,
        type: channel.type,
        name: "name" in channel ? (channel.name ?? undefined) : undefined,
      };
    },
    role: (name) => {
      const role = read(name, T.Role)?.role;
      return role ? { id: role.id, name: role.name } : undefined;
    },
    attachment: (name) => {
      const a = read(name, T.Attachment)?.attachment;
      return a
        ? { id: a.id, name: a.name, url: a.url, size: a.size, contentType: a.contentType ?? undefined }
        : undefined;
    },
  };
}
