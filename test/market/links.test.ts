// A listing's inspect and screenshot links: shown when it has them, screenshots only with a configured page.
import { describe, expect, it } from "vitest";
import { itemLinksOf } from "../../src/market/links.ts";
import { itemLinksText } from "../../src/discord/render/listing.ts";
import { listingWith } from "../alerts/fixtures.ts";

const TEMPLATE = "https://screens.example.test/s/{id}.jpg";

describe("item links", () => {
  it("GIVEN a listing with an inspect link and a screenshot id WHEN a screenshot page is configured THEN both links are given, the id escaped", () => {
    const listing = listingWith({
      item: { inspect_link: "platform://inspect/A1D2", game_screenshot_id: "a b/c" },
    });
    const links = itemLinksOf(listing, TEMPLATE);
    expect(links).toEqual({
      inspectLink: "platform://inspect/A1D2",
      screenshotUrl: "https://screens.example.test/s/a%20b%2Fc.jpg",
    });
    expect(itemLinksText(links)).toBe(
      "[Screenshot](https://screens.example.test/s/a%20b%2Fc.jpg)\nInspect: `platform://inspect/A1D2`",
    );
  });

  it("GIVEN no configured page, or a listing without either link THEN nothing is shown for what is missing", () => {
    const listing = listingWith({ item: { game_screenshot_id: "abc" } });
    expect(itemLinksOf(listing)).toEqual({});
    expect(itemLinksText({})).toBeUndefined();
    expect(itemLinksText({ inspectLink: "https://example.test/i?x=1" })).toBe(
      "[Inspect in game](https://example.test/i?x=1)",
    );
  });
});
