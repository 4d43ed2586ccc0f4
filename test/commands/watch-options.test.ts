// Discord's limits on command definitions, checked on every command; /watch add shows the few options
// most rules use, /watch edit and /watch filters every other one between them.
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

  it("GIVEN /watch add WHEN its options are read THEN a newcomer sees only the name, item, max price, float range, discount and destination", () => {
    const add = all.find((l) => l.path === "watch add");
    expect(add?.options.map((o) => o.name)).toEqual([
      "name",
      "item",
      "max_price",
      "min_float",
      "max_float",
      "min_discount",
      "channel",
    ]);
  });

  it("GIVEN /watch edit and /watch filters WHEN their options are read THEN together they set every filter /watch add ever had, on a rule named first", () => {
    const edit = all.find((l) => l.path === "watch edit")?.options.map((o) => o.name) ?? [];
    const names = all.find((l) => l.path === "watch filters")?.options.map((o) => o.name) ?? [];
    expect(edit[0]).toBe("rule");
    expect(names[0]).toBe("rule");
    expect(edit).toEqual(
      expect.arrayContaining([
        "item",
        "max_price",
        "min_float",
        "max_float",
        "min_discount",
        "channel",
        "clear",
      ]),
    );
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
    expect(names).toEqual(
      expect.arrayContaining([
        "def_index",
        "paint_index",
        "paint_seeds",
        "min_ref_qty",
        "type",
        "category",
        "stickers",
        "keychains",
        "clear",
      ]),
    );
    expect(all.map((l) => l.path)).toEqual(
      expect.arrayContaining(["watch tier add", "watch tier list", "watch tier remove"]),
    );
  });
});
