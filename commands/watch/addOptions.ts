// The options of /watch add (the rule's name, the filters most rules use and where alerts go), of
// /watch edit (the same, on a saved rule) and of /watch filters (every other filter). Discord allows
// at most 25 options per subcommand: fade and blue gem take one option for two bounds each; a test
// counts them (test/commands/watch-options.test.ts).
import { ApplicationCommandOptionType, ChannelType } from "discord.js";

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

const FILTER_OPTIONS = [
  {
    name: "item",
    description: "Exact item name, e.g. Falcon Rifle | Ember Tide (Pristine)",
    type: ApplicationCommandOptionType.String,
    autocomplete: true,
    max_length: 128,
  },
  {
    name: "def_index",
    description: "Weapon (def index)",
    type: ApplicationCommandOptionType.Integer,
    min_value: 0,
  },
  {
    name: "paint_index",
    description: "Finish (paint index)",
    type: ApplicationCommandOptionType.Integer,
    min_value: 0,
  },
  {
    name: "paint_seeds",
    description: "Any of these seeds, e.g. 661, 670, 955",
    type: ApplicationCommandOptionType.String,
    max_length: 600,
  },
  {
    name: "tier",
    description: "Any seed of one of your seed tiers (see /watch tier)",
    type: ApplicationCommandOptionType.String,
    autocomplete: true,
    max_length: 32,
  },
  {
    name: "min_float",
    description: "Lowest float (0-1)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 1,
  },
  {
    name: "max_float",
    description: "Highest float (0-1)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 1,
  },
  {
    name: "max_price",
    description: "Most you would pay, in USD",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
  },
  {
    name: "min_discount",
    description: "At least this many percent below the reference price",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 100,
  },
  {
    name: "min_profit",
    description: "Net profit reselling at the reference, after the seller fee, at least (USD)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
  },
  {
    name: "min_profit_pct",
    description: "Net profit reselling at the reference, as % of the price, at least",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 100_000,
  },
  {
    name: "min_exit_profit",
    description: "Profit selling at once to the best buy order, after the fee, at least (USD)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
  },
  {
    name: "fade",
    description: 'Fade %: a range "95-100", or "97" for at least 97',
    type: ApplicationCommandOptionType.String,
    max_length: 20,
  },
  {
    name: "blue_gem",
    description: 'Least blue %, playside/backside: "70/40", "70" or "/40"',
    type: ApplicationCommandOptionType.String,
    max_length: 20,
  },
  {
    name: "max_float_rank",
    description: "Float rank at most this (1 = the lowest float of its kind)",
    type: ApplicationCommandOptionType.Integer,
    min_value: 1,
    max_value: 1_000_000,
  },
  {
    name: "min_sticker_value",
    description: "Applied stickers worth at least this, wear counted (USD)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
  },
  {
    name: "min_sticker_pct",
    description: "Applied stickers worth at least this % of the price",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 100_000,
  },
  {
    name: "min_ref_qty",
    description: "Reference price based on at least this many sales",
    type: ApplicationCommandOptionType.Integer,
    min_value: 0,
  },
  {
    name: "min_sales_per_day",
    description: "Item sold at least this many times a day (last 7 days)",
    type: ApplicationCommandOptionType.Number,
    min_value: 0,
    max_value: 100_000,
  },
  {
    name: "type",
    description: "Buy now or auction",
    type: ApplicationCommandOptionType.String,
    choices: [
      { name: "buy now", value: "buy_now" },
      { name: "auction", value: "auction" },
    ],
  },
  {
    name: "category",
    description: "Normal, statcounter or souvenir",
    type: ApplicationCommandOptionType.String,
    choices: [
      { name: "any", value: "any" },
      { name: "normal", value: "normal" },
      { name: "statcounter", value: "statcounter" },
      { name: "souvenir", value: "souvenir" },
    ],
  },
  {
    name: "stickers",
    description: "Sticker ids, optionally with a slot: 123, 456|2",
    type: ApplicationCommandOptionType.String,
    max_length: 200,
  },
  {
    name: "keychains",
    description: "Keychain ids: 12, 34",
    type: ApplicationCommandOptionType.String,
    max_length: 100,
  },
] as const;

const CHANNEL = {
  name: "channel",
  description: "Post alerts in this channel instead of your DMs (needs Manage Channels)",
  type: ApplicationCommandOptionType.Channel,
  channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
} as const;

type FilterOption = (typeof FILTER_OPTIONS)[number];

/** The options most rules use: the item, the price ceiling, the float range and the discount. */
export const EVERYDAY_FILTERS = ["item", "max_price", "min_float", "max_float", "min_discount"] as const;

const everyday = (o: FilterOption) => (EVERYDAY_FILTERS as readonly string[]).includes(o.name);
const EVERYDAY_OPTIONS = EVERYDAY_FILTERS.map(
  (n) => FILTER_OPTIONS.find((o) => o.name === n) as FilterOption,
);
/** Every other filter (seeds, tiers, deal quality, stickers...): /watch filters sets them. */
export const ADVANCED_OPTIONS = FILTER_OPTIONS.filter((o) => !everyday(o));

/** /watch add: what most rules use, so a newcomer sees few options; /watch filters sets the rest. */
export const ADD_OPTIONS = [NAME, ...EVERYDAY_OPTIONS, CHANNEL] as const;
/** /watch edit: the everyday options of a rule, and what to clear. */
export const EDIT_OPTIONS = [RULE_OPTION, ...EVERYDAY_OPTIONS, CHANNEL, CLEAR_OPTION] as const;
/** /watch filters: every other filter of a rule, and what to clear. */
export const FILTERS_OPTIONS = [RULE_OPTION, ...ADVANCED_OPTIONS, CLEAR_OPTION] as const;
