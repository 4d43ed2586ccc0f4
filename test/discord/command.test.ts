// The command contract: typed options from the definition, handler coverage, unique actions, stable hashes.
import {
  ApplicationCommandOptionType,
  type CommandInteractionOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from "discord.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import { command as account } from "../../commands/account.ts";
import { commandModules } from "../../commands/index.ts";
import {
  defineCommand,
  subcommandPaths,
  type CommandContext,
  type LeafOptions,
} from "../../src/discord/command.ts";
import { createOptionsReader, pathOf, type OptionsReader } from "../../src/discord/options.ts";
import { definitionsHash } from "../../src/discord/registration.ts";
import { createRegistry } from "../../src/discord/registry.ts";
import { UserFacingError } from "../../src/errors.ts";

const T = ApplicationCommandOptionType;

const offer = {
  name: "offer",
  description: "Offers",
  options: [
    {
      name: "make",
      description: "Make an offer",
      type: T.Subcommand,
      options: [
        { name: "listing", description: "Listing id", type: T.String, required: true },
        { name: "price", description: "USD", type: T.Number, required: true },
        { name: "note", description: "Note", type: T.String },
        { name: "quantity", description: "How many", type: T.Integer },
      ],
    },
    {
      name: "group",
      description: "A group",
      type: T.SubcommandGroup,
      options: [
        {
          name: "deep",
          description: "Deep",
          type: T.Subcommand,
          options: [{ name: "flag", description: "F", type: T.Boolean }],
        },
      ],
    },
  ],
} as const satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

describe("typed options", () => {
  it("GIVEN a definition WHEN reading options at a path THEN names and requiredness are typed", () => {
    type Make = OptionsReader<LeafOptions<typeof offer, "make">>;
    expectTypeOf<ReturnType<Make["string"]>>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Parameters<Make["string"]>[0]>().toEqualTypeOf<"listing" | "note">();
    expectTypeOf<Parameters<Make["number"]>[0]>().toEqualTypeOf<"price">();
    expectTypeOf<Parameters<Make["integer"]>[0]>().toEqualTypeOf<"quantity">();
    const check = (opts: Make) => {
      expectTypeOf(opts.string("listing")).toEqualTypeOf<string>();
      expectTypeOf(opts.string("note")).toEqualTypeOf<string | undefined>();
      expectTypeOf(opts.number("price")).toEqualTypeOf<number>();
      // @ts-expect-error "price" is a number option, not a string
      opts.string("price");
    };
    expect(check).toBeTypeOf("function");
    type Deep = OptionsReader<LeafOptions<typeof offer, "group deep">>;
    expectTypeOf<Parameters<Deep["boolean"]>[0]>().toEqualTypeOf<"flag">();
  });

  it("GIVEN a command with subcommands WHEN defined THEN every path needs a handler (types) and is checked at start (runtime)", () => {
    expect(subcommandPaths(offer)).toEqual(["make", "group deep"]);
    const handler = { defer: false as const, run: async () => undefined };
    const module = defineCommand({
      definition: offer,
      subcommands: { make: handler, "group deep": handler },
    });
    expect(module.handler("group deep")).toBe(handler);
    expect(() =>
      // @ts-expect-error "group deep" is missing
      defineCommand({ definition: offer, subcommands: { make: handler } }),
    ).toThrow(/no handler for group deep/);
    const typed = (ctx: CommandContext<LeafOptions<typeof offer, "make">>) => ctx.options.number("price");
    expect(typed).toBeTypeOf("function");
  });

  it("GIVEN interaction options WHEN read THEN values come back as plain data and a missing required one is a user error", () => {
    const given: CommandInteractionOption[] = [
      {
        name: "make",
        type: T.Subcommand,
        options: [
          { name: "listing", type: T.String, value: "123" },
          { name: "quantity", type: T.Integer, value: 2 },
        ],
      },
    ];
    expect(pathOf(given)).toBe("make");
    const reader = createOptionsReader(given, offer.options[0].options);
    expect(reader.string("listing")).toBe("123");
    expect(reader.integer("quantity")).toBe(2);
    expect(reader.string("note")).toBeUndefined();
    expect(() => reader.number("price")).toThrow(UserFacingError);
    // A registration older than the code can send another type than the definition says.
    // @ts-expect-error "listing" is a string option
    expect(() => reader.number("listing")).toThrow(/unexpected type/);
  });
});

describe("registry and registration", () => {
  it("GIVEN the real command modules WHEN indexed THEN names and actions are unique and /account exposes its modal and button", () => {
    const registry = createRegistry(commandModules);
    expect(registry.definitions.map((d) => d.name)).toEqual(commandModules.map((m) => m.name));
    expect(registry.modal("acct.link")?.module).toBe(account);
    expect(registry.component("acct.check")?.module).toBe(account);
  });

  it("GIVEN two modules with the same command or action WHEN indexed THEN start-up fails naming them", () => {
    const handler = { defer: false as const, run: async () => undefined };
    const a = defineCommand({
      definition: { name: "a", description: "A" },
      execute: handler,
      components: { "x.y": handler },
    });
    const b = defineCommand({
      definition: { name: "b", description: "B" },
      execute: handler,
      components: { "x.y": handler },
    });
    expect(() => createRegistry([a, a])).toThrow(/two command modules define \/a/);
    expect(() => createRegistry([a, b])).toThrow(/"x.y" is used by \/a and \/b/);
  });

  it("GIVEN the same definitions in another key order THEN the hash is the same; another app or definition changes it", () => {
    const one = [{ name: "a", description: "A", options: [] }];
    const reordered = [{ options: [], description: "A", name: "a" }];
    expect(definitionsHash("1", one)).toBe(definitionsHash("1", reordered));
    expect(definitionsHash("2", one)).not.toBe(definitionsHash("1", one));
    expect(definitionsHash("1", [{ name: "a", description: "B" }])).not.toBe(definitionsHash("1", one));
  });
});
