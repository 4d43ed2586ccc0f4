// Discord's limits on command definitions, checked on every command: /watch add sits at the 25-option ceiling.
import { describe, expect, it } from "vitest";
import { commandModules } from "../../commands/index.ts";

interface Option {
  name: string;
  description: string;
  type: number;
  required?: boolean;
  options?: Option[];
}

const SUBCOMMAND = 1;
const GROUP = 2;

/** Every leaf (command, subcommand) with its path and options. */
function leaves(name: string, options: readonly Option[]): Array<{ path: string; options: Option[] }> {
  const nested = options.filter((o) => o.type === SUBCOMMAND || o.type === GROUP);
  if (nested.length === 0) return [{ path: name, options: [...options] }];
  return nested.flatMap((o) => leaves(`${name} ${o.name}`, o.options ?? []));
}

const all = commandModules.flatMap((m) =>
  leaves(m.name, (m.definition.options ?? []) as unknown as readonly Option[]),
);

describe("command definitions within Discord's limits", () => {
  it("GIVEN every subcommand WHEN its options are counted THEN none has more than 25", () => {
    expect(all.filter((l) => l.options.length > 25).map((l) => `${l.path}: ${l.options.length}`)).toEqual([]);
  });

  it("GIVEN every option WHEN described THEN the description is 1-100 characters and required options come first", () => {
    const bad = all.flatMap((l) =>
      l.options
        .filter((o) => o.description.length < 1 || o.description.length > 100)
        .map((o) => `${l.path} ${o.name}`),
    );
    expect(bad).toEqual([]);
    const misordered = all.filter((l) => {
      const firstOptional = l.options.findIndex((o) => o.required !== true);
      return firstOptional >= 0 && l.options.slice(firstOptional).some((o) => o.required === true);
    });
    expect(misordered.map((l) => l.path)).toEqual([]);
  });

  it("GIVEN /watch add WHEN its options are read THEN every deal filter and the tier are there", () => {
    const add = all.find((l) => l.path === "watch add");
    const names = add?.options.map((o) => o.name) ?? [];
    expect(names).toEqual(
      expect.arrayContaining([
        "min_profit",
        "min_profit_pct",
        "min_exit_profit",
        "fade",
        "blue_gem",
        "max_float_rank",
        "min_sticker_value",
        "min_sticker_pct",
        "min_sales_per_day",
        "tier",
      ]),
    );
    expect(names).toHaveLength(25);
    expect(all.map((l) => l.path)).toEqual(
      expect.arrayContaining(["watch tier add", "watch tier list", "watch tier remove"]),
    );
  });
});
