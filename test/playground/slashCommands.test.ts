// The composer's reading of typed commands, without a browser: ranking suggestions and parsing `/cmd option:value`.
import { describe, expect, it } from "vitest";
import {
  leafCommands,
  parseCommandLine,
  rankCommands,
  type CommandDef,
} from "../../src/playground/web/slashCommands.js";

const S = 3;
const I = 4;
const B = 5;
const U = 6;
const C = 7;

const COMMANDS: CommandDef[] = [
  {
    name: "account",
    options: [
      {
        name: "settings",
        type: 1,
        options: [
          { name: "quiet_hours", type: S },
          { name: "timezone", type: S },
          { name: "listing_alerts", type: B },
        ],
      },
    ],
  },
  {
    name: "buyorder",
    options: [
      { name: "matches", type: 1, options: [{ name: "listing", type: S, required: true }] },
      { name: "list", type: 1, options: [{ name: "page", type: I }] },
    ],
  },
  { name: "help" },
  {
    name: "search",
    options: [
      { name: "item", type: S },
      { name: "max_price", type: S },
      { name: "max_float", type: S },
      {
        name: "sort",
        type: S,
        choices: [
          { name: "Lowest price", value: "lowest_price" },
          { name: "Newest", value: "most_recent" },
        ],
      },
    ],
  },
  {
    name: "watch",
    options: [
      {
        name: "add",
        type: 1,
        options: [
          { name: "name", type: S, required: true },
          { name: "item", type: S },
          { name: "channel", type: C },
        ],
      },
      {
        name: "tier",
        type: 2,
        options: [{ name: "add", type: 1, options: [{ name: "name", type: S, required: true }] }],
      },
    ],
  },
  { name: "stall", options: [{ name: "owner", type: U, required: true }] },
];
const leaves = leafCommands(COMMANDS);
const refs = {
  users: [{ id: "111", username: "alice", displayName: "Alice" }],
  channels: [{ id: "222", name: "deals" }],
};

describe("ranking the commands for what is typed after /", () => {
  it("GIVEN /he WHEN ranked THEN /help comes before /buyorder matches, which only contains the letters", () => {
    expect(rankCommands("he", leaves).map((l) => l.path)).toEqual(["help", "buyorder matches"]);
  });

  it("GIVEN a later word of a command WHEN ranked THEN commands starting with it come first, then those with a word starting with it", () => {
    const paths = rankCommands("list", leaves).map((l) => l.path);
    expect(paths).toEqual(["buyorder list"]);
    expect(rankCommands("s", leaves).map((l) => l.path)).toEqual(["search", "stall", "account settings"]);
  });

  it("GIVEN the exact path WHEN ranked THEN it is first even when a longer path starts with it", () => {
    expect(rankCommands("watch add", leaves)[0]?.path).toBe("watch add");
  });
});

describe("reading a typed command line", () => {
  it("GIVEN values with spaces, a pipe and a choice by its name WHEN parsed THEN each option holds its whole value", () => {
    const parsed = parseCommandLine(
      "/search item:Falcon Rifle | Ember Tide (Pristine) max_price:120 max_float:0.07 sort:Lowest price",
      leaves,
    );
    expect(parsed).toEqual({
      ok: true,
      leaf: expect.objectContaining({ path: "search" }),
      values: {
        item: "Falcon Rifle | Ember Tide (Pristine)",
        max_price: "120",
        max_float: "0.07",
        sort: "lowest_price",
      },
      missing: [],
    });
  });

  it("GIVEN colons inside a value WHEN parsed THEN only an option's own name starts the next option", () => {
    const parsed = parseCommandLine(
      "/account settings quiet_hours:22:00-07:00 timezone:Europe/Berlin listing_alerts:False",
      leaves,
    );
    expect(parsed.ok && parsed.values).toEqual({
      quiet_hours: "22:00-07:00",
      timezone: "Europe/Berlin",
      listing_alerts: "false",
    });
  });

  it("GIVEN a quoted value holding another option's name WHEN parsed THEN the quotes keep it one value", () => {
    const parsed = parseCommandLine('/watch add name:"cheap item:x" item:“Viper SMG”', leaves);
    expect(parsed.ok && parsed.values).toEqual({ name: "cheap item:x", item: "Viper SMG" });
  });

  it("GIVEN a subcommand group and a missing required option WHEN parsed THEN the leaf is found and the missing option named", () => {
    const group = parseCommandLine("/watch tier add name:tier 1", leaves);
    expect(group.ok && group.leaf.path).toBe("watch tier add");
    expect(group.ok && group.values).toEqual({ name: "tier 1" });
    const missing = parseCommandLine("/watch add item:Viper SMG", leaves);
    expect(missing.ok && missing.missing).toEqual(["name"]);
  });

  it("GIVEN a channel and a user by name WHEN parsed THEN their ids are filled in, as the pickers hold them", () => {
    const parsed = parseCommandLine("/watch add name:x channel:#deals", leaves, refs);
    expect(parsed.ok && parsed.values.channel).toBe("222");
    const user = parseCommandLine("/stall owner:@Alice", leaves, refs);
    expect(user.ok && user.values.owner).toBe("111");
  });

  it("GIVEN a name that is no option, an empty value, an unknown choice or an unknown command WHEN parsed THEN it says which", () => {
    const unknown = parseCommandLine("/search colour:red", leaves);
    expect(!unknown.ok && unknown.error).toMatch(/no option “colour”.*item, max_price/);
    const empty = parseCommandLine("/search item: max_price:3", leaves);
    expect(!empty.ok && empty.error).toMatch(/“item” has no value/);
    const choice = parseCommandLine("/search sort:cheapest", leaves);
    expect(!choice.ok && choice.error).toMatch(/Lowest price, Newest/);
    const none = parseCommandLine("/sell list asset:1", leaves);
    expect(!none.ok && none.error).toBe("No command matches /sell.");
    const bare = parseCommandLine("/account settings listing_alerts", leaves);
    expect(!bare.ok && bare.error).toBe("“listing_alerts” needs a value: listing_alerts:…");
    const twice = parseCommandLine("/search item:a item:b", leaves);
    expect(!twice.ok && twice.error).toMatch(/given twice/);
  });

  it("GIVEN a command name typed in capitals and a word run into it WHEN parsed THEN the name is read case-blind and a longer word is no match", () => {
    expect(parseCommandLine("/HELP", leaves).ok).toBe(true);
    expect(parseCommandLine("/helpme", leaves).ok).toBe(false);
  });
});
