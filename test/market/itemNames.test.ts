// The one item-name index: catalog names, names seen on the market and, for /watch, names rules
// use; one spelling for a name typed in any case, and the closest names for one that is no item.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { catalogItems, EXAMPLE_ITEM } from "../../src/sandbox/catalog.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createItemNameIndex } from "../../src/market/itemNames.ts";

const logger = createLogger({ level: "silent" });
const catalog = catalogItems().map((c) => c.name);
let sandbox: Sandbox;
let client: MarketClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
  client = createMarketClient({ baseUrl: sandbox.baseUrl, logger });
});

afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

const deps = () => ({ market: client.forKey(sandbox.operatorKey), logger });

describe("createItemNameIndex", () => {
  it("GIVEN a catalog WHEN a name is typed in another case or with spaces around THEN it is known under the catalog's spelling", () => {
    const index = createItemNameIndex({ now: () => 0, known: catalog });
    expect(index.canonical(`  ${EXAMPLE_ITEM.toUpperCase()} `)).toBe(EXAMPLE_ITEM);
    expect(index.canonical("Falcon Rifle | Ember Tide")).toBeUndefined();
  });

  it("GIVEN a misspelt name WHEN the closest names are asked THEN the intended item comes first", () => {
    const index = createItemNameIndex({ now: () => 0, known: catalog });
    expect(index.closest("falcon rifle | ember tid (pristin)", 3)[0]).toBe(EXAMPLE_ITEM);
    expect(index.closest("Warden Carbin | Harbour Fog (Field Worn)", 3)[0]).toBe(
      "Warden Carbine | Harbor Fog (Field Worn)",
    );
    expect(index.closest("zzzz qqqq", 3)).toEqual([]);
  });

  it("GIVEN a name a letter off a known one, or a part of one THEN it is a slip for that name; a new item's name of a known weapon is none", () => {
    const index = createItemNameIndex({ now: () => 0, known: catalog });
    expect(index.slipsOf("Falcon Rifle | Ember Tid (Pristine)")).toContain(EXAMPLE_ITEM);
    expect(index.slipsOf("ember tide (pristine)")).toContain(EXAMPLE_ITEM);
    expect(index.slipsOf("Falcon Rifle | Night Bloom (Pristine)")).toEqual([]);
    expect(index.slipsOf("Night Lance | Ærøskøbing 新しい (Factory New)")).toEqual([]);
    expect(index.slipsOf("   ")).toEqual([]);
  });

  it("GIVEN no catalog (the live case) WHEN a name was seen on a search THEN it is known, and a name never seen is not", () => {
    const index = createItemNameIndex({ now: () => 0 });
    index.remember(["Odd Blaster | Test Pattern (Field Worn)"]);
    expect(index.canonical("odd blaster | test pattern (field worn)")).toBe(
      "Odd Blaster | Test Pattern (Field Worn)",
    );
    expect(index.canonical(EXAMPLE_ITEM)).toBeUndefined();
  });

  it("GIVEN a catalog and the market's newest listings WHEN words are typed THEN names from both are suggested, prefix matches first, at most 25", async () => {
    const index = createItemNameIndex({ now: () => 0, known: catalog });
    const words = await index.suggest(deps(), "ember tide");
    expect(words.length).toBeGreaterThan(0);
    expect(words.every((n) => n.toLowerCase().includes("ember tide"))).toBe(true);
    expect(words).toContain(EXAMPLE_ITEM);
    const prefixed = await index.suggest(deps(), "glider knife");
    expect(prefixed[0]?.startsWith("Glider Knife")).toBe(true);
    expect((await index.suggest(deps(), "")).length).toBe(25);
  });

  it("GIVEN names rules use WHEN /watch asks with rule names THEN they follow the market's names and precede the catalog's, in the market's spelling, each once; other callers never ask", async () => {
    const listed = `Odd Blaster | Rule Shared ${Date.now()}`;
    sandbox.control.createListing({ market_hash_name: listed, price: 1_000 });
    const asked: string[] = [];
    const index = createItemNameIndex({
      now: () => 0,
      known: ["Odd Blaster | Rule Catalog", "Odd Blaster | Rule Known"],
      ruleNames: (text) => {
        asked.push(text);
        return Promise.resolve([listed.toLowerCase(), "odd blaster | rule known", "Odd Blaster | Rule Only"]);
      },
    });
    expect(await index.suggest(deps(), "  Odd Blaster | RULE ", { withRuleNames: true })).toEqual([
      listed,
      "Odd Blaster | Rule Known",
      "Odd Blaster | Rule Only",
      "Odd Blaster | Rule Catalog",
    ]);
    expect(asked).toEqual(["odd blaster | rule"]);
    expect(await index.suggest(deps(), "odd blaster | rule")).toEqual([
      listed,
      "Odd Blaster | Rule Catalog",
      "Odd Blaster | Rule Known",
    ]);
    expect(asked).toHaveLength(1);
  });

  it("GIVEN an autocomplete out of time WHEN suggestions are asked THEN none come and rules are not looked up", async () => {
    let asked = 0;
    const index = createItemNameIndex({
      now: () => 0,
      known: catalog,
      ruleNames: () => {
        asked += 1;
        return Promise.resolve([]);
      },
    });
    const signal = AbortSignal.abort();
    expect(await index.suggest(deps(), "ember tide", { signal, withRuleNames: true })).toEqual([]);
    expect(asked).toBe(0);
  });
});
