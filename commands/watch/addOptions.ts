// The options of /watch add (the rule's name, the filters most rules use and where alerts go), of
// /watch edit (the same, on a saved rule) and of /watch filters (every other filter); each filter's
// own come from the filter registry. Discord allows at most 25 options per subcommand: fade and blue
// gem take one option for two bounds each; a test counts them (test/commands/watch-options.test.ts).
import { ApplicationCommandOptionType, ChannelType } from "discord.js";
import {
  FILTER_OPTIONS as FILTER_OPTION_SPECS,
  type FilterOption,
} from "../../src/watch/filters/registry.ts";

const NAME = {
  name: "name",
  description: 'A name for the rule, e.g. "cheap ember tide"',
  type: ApplicationCommandOptionType.String,
  required: true,
  max_length: 50,
} as const;

/** The rule to change, by name (suggested from the user's rules). */
export const RULE_OPTION = {
  name: "rule",
  description: "The rule to change",
  type: ApplicationCommandOptionType.String,
  required: true,
  autocomplete: true,
  max_length: 50,
} as const;

/** Filters to remove: option names, comma-separated; "channel" sends alerts back to DMs. */
export const CLEAR_OPTION = {
  name: "clear",
  description: 'Remove filters, e.g. "max_price, fade"; "channel" sends alerts back to your DMs',
  type: ApplicationCommandOptionType.String,
  max_length: 300,
} as const;

/** Discord's option type for each kind of filter option the registry declares. */
const OPTION_TYPE = {
  string: ApplicationCommandOptionType.String,
  integer: ApplicationCommandOptionType.Integer,
  number: ApplicationCommandOptionType.Number,
} as const;

/** A registry option as Discord's option JSON: its `type` word swapped for Discord's number, every other key kept in place. */
type SlashOption<O> = O extends FilterOption
  ? { readonly [K in keyof O]: K extends "type" ? (typeof OPTION_TYPE)[O["type"]] : O[K] }
  : never;

function slashOption<O extends FilterOption>(option: O): SlashOption<O> {
  // Spreading keeps the keys' order, and `type` keeps its place: the registered JSON (and the
  // hash that decides re-registration) is what the registry writes.
  return { ...option, type: OPTION_TYPE[option.type] } as SlashOption<O>;
}

/** Every filter's options (the filter registry, src/watch/filters/registry.ts), in its order. */
const FILTER_OPTIONS = FILTER_OPTION_SPECS.map(slashOption);

const CHANNEL = {
  name: "channel",
  description: "Post alerts in this channel instead of your DMs (needs Manage Channels)",
  type: ApplicationCommandOptionType.Channel,
  channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
} as const;

type FilterSlashOption = (typeof FILTER_OPTIONS)[number];

/** The options most rules use: the item, the price ceiling, the float range and the discount. */
export const EVERYDAY_FILTERS = ["item", "max_price", "min_float", "max_float", "min_discount"] as const;

const everyday = (o: FilterSlashOption) => (EVERYDAY_FILTERS as readonly string[]).includes(o.name);
const EVERYDAY_OPTIONS = EVERYDAY_FILTERS.map(
  (n) => FILTER_OPTIONS.find((o) => o.name === n) as FilterSlashOption,
);
/** Every other filter (seeds, tiers, deal quality, stickers...): /watch filters sets them. */
export const ADVANCED_OPTIONS = FILTER_OPTIONS.filter((o) => !everyday(o));

/** /watch add: what most rules use, so a newcomer sees few options; /watch filters sets the rest. */
export const ADD_OPTIONS = [NAME, ...EVERYDAY_OPTIONS, CHANNEL] as const;
/** /watch edit: the everyday options of a rule, and what to clear. */
export const EDIT_OPTIONS = [RULE_OPTION, ...EVERYDAY_OPTIONS, CHANNEL, CLEAR_OPTION] as const;
/** /watch filters: every other filter of a rule, and what to clear. */
export const FILTERS_OPTIONS = [RULE_OPTION, ...ADVANCED_OPTIONS, CLEAR_OPTION] as const;
