// User input parsing: a table of good and bad inputs across every parser, plus echo-safety helpers.
import { describe, expect, it } from "vitest";
import { UserFacingError } from "../../src/errors.ts";
import {
  escapeMarkdown,
  neutralizeMentions,
  parseFloatValue,
  parseId,
  parseIdList,
  parseIntOption,
  parsePercent,
  parsePrice,
  parseRange,
  parseSeeds,
  parseSmallIdList,
  parseStickerSelectors,
  parseText,
  safeUserText,
} from "../../src/input/parse.ts";

interface Case {
  name: string;
  run: () => unknown;
  /** The parsed value, or the error: the option it must name and a phrase of the problem. */
  expected: { value: unknown } | { option: string; problem: string };
}

/** The error a call throws, or undefined when it returns. */
function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const ok = (name: string, run: () => unknown, value: unknown): Case => ({ name, run, expected: { value } });
const bad = (name: string, run: () => unknown, option: string, problem: string): Case => ({
  name,
  run,
  expected: { option, problem },
});

const price = (raw: string | number) => () => parsePrice("max_price", raw);
const float = (raw: string | number) => () => parseFloatValue("max_float", raw);
const seeds = (raw: string) => () => parseSeeds("paint_seeds", raw);
const stickers = (raw: string) => () => parseStickerSelectors("stickers", raw);
const text =
  (raw: string, max = 20) =>
  () =>
    parseText("item", raw, max);
const int = (raw: string | number) => () => parseIntOption("min_ref_qty", raw, 0, 1000);
const percent = (raw: string | number) => () => parsePercent("min_discount", raw);
const id = (raw: string | number) => () => parseId("listing", raw);
const ids = (raw: string) => () => parseIdList("listings", raw, 25);

const PRICE_HINT = "enter a price in dollars, e.g. 12.50";
const FLOAT_HINT = "enter a float between 0 and 1";
const ID_HINT = "listing ids are numbers like 123456789";

const cases: Case[] = [
  // parsePrice
  ok("price with cents", price("12.50"), 1250),
  ok("price with one decimal", price("12.5"), 1250),
  ok("price with a dollar sign", price("$3"), 300),
  ok("price with thousands separators", price("1,234.56"), 123456),
  ok("price surrounded by spaces", price("  7  "), 700),
  ok("price from a Number option", price(12.5), 1250),
  ok("price from a binary-fraction Number option", price(0.1 + 0.2), 30),
  ok("the largest price", price("1,000,000,000"), 100_000_000_000),
  ok("zero when allowed", () => parsePrice("min_price", "0", { allowZero: true }), 0),
  bad("zero price", price("0"), "max_price", "more than $0.00"),
  bad("a word as price", price("abc"), "max_price", PRICE_HINT),
  bad("negative price", price("-1"), "max_price", "must not be negative"),
  bad("negative Number price", price(-5), "max_price", "must not be negative"),
  bad("exponent price", price("1e999"), "max_price", PRICE_HINT),
  bad("hexadecimal price", price("0x10"), "max_price", PRICE_HINT),
  bad("price with three decimals", price("12.345"), "max_price", "at most 2 decimals"),
  bad("Number price with three decimals", price(12.345), "max_price", "at most 2 decimals"),
  bad("price above a billion", price("1000000000.01"), "max_price", "at most $1,000,000,000"),
  bad("huge Number price", price(1e21), "max_price", "at most $1,000,000,000"),
  bad("NaN price", price(Number.NaN), "max_price", PRICE_HINT),
  bad("Infinity price", price(Number.POSITIVE_INFINITY), "max_price", PRICE_HINT),
  bad("empty price", price("   "), "max_price", PRICE_HINT),
  bad("full-width digits as price", price("１２"), "max_price", PRICE_HINT),
  bad("SQL injection as price", price("'; DROP TABLE listings; --"), "max_price", PRICE_HINT),
  bad("misplaced comma in price", price("1,2"), "max_price", PRICE_HINT),
  bad("price with a currency word", price("12.50 USD"), "max_price", PRICE_HINT),
  bad("a pasted novel as price", price("9".repeat(1000)), "max_price", "too long"),

  // parseFloatValue
  ok("float with leading zero", float("0.07"), 0.07),
  ok("float without leading zero", float(".5"), 0.5),
  ok("float of zero", float("0"), 0),
  ok("float of one", float("1"), 1),
  ok("float from a Number option", float(0.25), 0.25),
  bad("a float of 2", float("2"), "max_float", "must be between 0 and 1"),
  bad("a Number float of 2", float(2), "max_float", "must be between 0 and 1"),
  bad("negative float", float("-0.1"), "max_float", "must be between 0 and 1"),
  bad("float in exponent form", float("1e-3"), "max_float", FLOAT_HINT),
  bad("float written NaN", float("NaN"), "max_float", FLOAT_HINT),
  bad("float written Infinity", float("Infinity"), "max_float", FLOAT_HINT),
  bad("Number float Infinity", float(Number.POSITIVE_INFINITY), "max_float", FLOAT_HINT),
  bad("float with a decimal comma", float("0,07"), "max_float", FLOAT_HINT),
  bad("float as a word", float("low"), "max_float", FLOAT_HINT),

  // parseRange
  ok("range with min below max", () => parseRange("min_float", 0.1, "max_float", 0.2), {
    min: 0.1,
    max: 0.2,
  }),
  ok("range with equal ends", () => parseRange("min_float", 0.1, "max_float", 0.1), { min: 0.1, max: 0.1 }),
  ok("range with one end", () => parseRange("min_float", undefined, "max_float", 0.2), {
    min: undefined,
    max: 0.2,
  }),
  bad(
    "range with min above max",
    () => parseRange("min_float", 0.5, "max_float", 0.1),
    "min_float",
    "min_float (0.5) is above max_float (0.1)",
  ),

  // parseId / parseIdList
  ok("listing id", id("123456789"), "123456789"),
  ok("listing id with spaces", id(" 42 "), "42"),
  ok("twenty-digit id beyond 2^53", id("12345678901234567890"), "12345678901234567890"),
  ok("id from a Number option", id(77), "77"),
  bad("twenty-one digit id", id("123456789012345678901"), "listing", ID_HINT),
  bad("id as a word", id("abc"), "listing", ID_HINT),
  bad("negative id", id("-1"), "listing", ID_HINT),
  bad("path traversal as id", id("../etc/passwd"), "listing", ID_HINT),
  bad("NUL byte escape as id", id("123%00"), "listing", ID_HINT),
  bad("script tag as id", id("<script>alert(1)</script>"), "listing", ID_HINT),
  bad("fractional Number id", id(1.5), "listing", ID_HINT),
  ok("id list separated by commas and spaces, deduplicated", ids("1, 2 3,2"), ["1", "2", "3"]),
  bad("empty id list", ids(" , "), "listings", "enter at least one listing id"),
  bad("id list with a word", ids("1,abc"), "listings", '"abc" is not an id'),
  bad(
    "id list longer than its maximum",
    ids(Array.from({ length: 26 }, (_, i) => i + 1).join(",")),
    "listings",
    "at most 25",
  ),

  // parseSeeds
  ok("seed list", seeds("661, 670, 955"), [661, 670, 955]),
  ok("repeated seeds", seeds("5 5 5"), [5]),
  ok("seed bounds", seeds("0,100000"), [0, 100_000]),
  bad("seed above the maximum", seeds("661, 100001"), "paint_seeds", '"100001" is not a pattern seed'),
  bad("negative seed", seeds("-1"), "paint_seeds", '"-1" is not a pattern seed'),
  bad("fractional seed", seeds("1.5"), "paint_seeds", '"1.5" is not a pattern seed'),
  bad("seed as a word", seeds("661 abc"), "paint_seeds", '"abc" is not a pattern seed'),
  bad("empty seed list", seeds(""), "paint_seeds", "at least one seed"),
  bad(
    "more than 100 seeds",
    seeds(Array.from({ length: 101 }, (_, i) => i).join(",")),
    "paint_seeds",
    "at most 100 seeds",
  ),

  // parseStickerSelectors
  ok("stickers with and without slot", stickers("123|0, 456"), [{ id: 123, slot: 0 }, { id: 456 }]),
  ok("sticker with spaces around the pipe", stickers("123 | 2"), [{ id: 123, slot: 2 }]),
  ok("repeated sticker", stickers("5, 5"), [{ id: 5 }]),
  ok("one sticker in two slots", stickers("5|0 5|1"), [
    { id: 5, slot: 0 },
    { id: 5, slot: 1 },
  ]),
  bad("sticker slot above 5", stickers("123|6"), "stickers", "slot must be from 0 to 5"),
  bad("sticker slot as a word", stickers("123|x"), "stickers", '"123|x" is not a sticker'),
  bad("sticker slot without id", stickers("|0"), "stickers", '"|0" is not a sticker'),
  bad("two stickers in one slot", stickers("1|0, 2|0"), "stickers", "slot 0 is given two stickers"),
  bad("seven stickers", stickers("1 2 3 4 5 6 7"), "stickers", "at most 6 stickers"),

  // parseSmallIdList (keychains)
  ok("keychain ids", () => parseSmallIdList("keychains", "12, 34 12", 4, "keychain"), [12, 34]),
  bad(
    "keychain id as a word",
    () => parseSmallIdList("keychains", "12 charm", 4, "keychain"),
    "keychains",
    '"charm" is not a keychain id',
  ),

  // parseText
  ok("text is trimmed", text("  Falcon Rifle  "), "Falcon Rifle"),
  ok("SQL injection text is kept as text", text("'; DROP TABLE users; --", 40), "'; DROP TABLE users; --"),
  ok("script tag text is kept as text", text("<script>alert(1)</script>", 40), "<script>alert(1)</script>"),
  ok("mention text is kept (neutralised on echo)", text("@everyone"), "@everyone"),
  ok("unicode name", text("★ Talon Knife"), "★ Talon Knife"),
  ok("emoji count as one character each", text("🔥".repeat(20)), "🔥".repeat(20)),
  bad("emoji over the limit", text("🔥".repeat(21)), "item", "at most 20 characters"),
  bad("text over the limit", text("x".repeat(21)), "item", "at most 20 characters (got 21)"),
  bad("a megabyte of text", text("x".repeat(1_000_000)), "item", "at most 20 characters"),
  bad("text with a NUL", text("a\u0000b"), "item", "control characters"),
  bad("text with a line break", text("line\nbreak"), "item", "control characters"),
  bad("text with a right-to-left override", text("\u202Eevil"), "item", "control characters"),
  bad("empty text", text("   "), "item", "must not be empty"),

  // parseIntOption
  ok("integer text", int("10"), 10),
  ok("integer Number", int(10), 10),
  ok("integer at the upper bound", int("1000"), 1000),
  bad("fractional integer", int("1.5"), "min_ref_qty", "whole number from 0 to 1000"),
  bad("integer below the minimum", int("-1"), "min_ref_qty", "whole number from 0 to 1000"),
  bad("integer above the maximum", int("1001"), "min_ref_qty", "whole number from 0 to 1000"),
  bad("integer in exponent form", int("1e3"), "min_ref_qty", "whole number"),
  bad("hexadecimal integer", int("0x10"), "min_ref_qty", "whole number"),
  bad("Infinity as integer", int(Number.POSITIVE_INFINITY), "min_ref_qty", "whole number"),

  // parsePercent
  ok("percent", percent("15"), 15),
  ok("percent with a sign", percent("15%"), 15),
  ok("fractional percent", percent("12.5"), 12.5),
  bad("percent above 100", percent("101"), "min_discount", "between 0 and 100"),
  bad("negative percent", percent("-5"), "min_discount", "between 0 and 100"),
  bad("percent as a word", percent("lots"), "min_discount", "enter a percentage"),
];

describe("user input parsing", () => {
  it("GIVEN the table WHEN counted THEN it covers at least 60 inputs", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases.map((c) => [c.name, c] as const))(
    "GIVEN %s WHEN parsed THEN the expected value or message",
    (_, c) => {
      if ("value" in c.expected) {
        expect(c.run()).toEqual(c.expected.value);
        return;
      }
      const caught = errorOf(c.run);
      expect(caught).toBeInstanceOf(UserFacingError);
      const error = caught as UserFacingError;
      expect(error.code).toBe("invalid_input");
      expect(error.context).toEqual({ option: c.expected.option });
      expect(error.userMessage.startsWith(`\`${c.expected.option}\`: `)).toBe(true);
      expect(error.userMessage).toContain(c.expected.problem);
    },
  );

  it("GIVEN a mention as a bad seed WHEN the error is shown THEN it cannot ping anyone", () => {
    const error = errorOf(seeds("@everyone"));
    expect(error).toBeInstanceOf(UserFacingError);
    const message = (error as UserFacingError).userMessage;
    expect(message).not.toContain("@everyone");
    expect(message).toContain("@\u200beveryone");
  });

  it("GIVEN a long bad token WHEN the error is shown THEN the token is shortened", () => {
    const token = "z".repeat(500);
    expect(seeds(token)).toThrow(/"z{23}…"/);
  });
});

describe("echoing user text", () => {
  it("GIVEN @everyone, @here and id mentions WHEN neutralised THEN none can ping", () => {
    const out = neutralizeMentions("@everyone @here <@123> <@!456> <@&789> <#42>");
    expect(out).toBe("@\u200beveryone @\u200bhere <@\u200b123> <@!\u200b456> <@&\u200b789> <#\u200b42>");
  });

  it("GIVEN markdown WHEN escaped THEN it renders literally", () => {
    expect(escapeMarkdown("**bold** _x_ `code` ||spoiler|| ~~gone~~ [link](x)")).toBe(
      "\\*\\*bold\\*\\* \\_x\\_ \\`code\\` \\|\\|spoiler\\|\\| \\~\\~gone\\~\\~ \\[link\\](x)",
    );
  });

  it("GIVEN a line starting with a heading, quote or list marker WHEN escaped THEN the marker is escaped", () => {
    expect(escapeMarkdown("# big\n> quote\n- item\n1. first")).toBe(
      "\\# big\n\\> quote\n\\- item\n1\\. first",
    );
  });

  it("GIVEN an item name with a single pipe WHEN escaped THEN it stays readable", () => {
    expect(escapeMarkdown("Falcon Rifle | Ember Tide (Pristine)")).toBe(
      "Falcon Rifle | Ember Tide (Pristine)",
    );
  });

  it("GIVEN long text with controls WHEN made safe THEN it is cut with an ellipsis and controls become spaces", () => {
    expect(safeUserText("a\u0000b" + "c".repeat(50), 10)).toBe("a b" + "c".repeat(6) + "…");
  });

  it("GIVEN a megabyte of text WHEN made safe THEN only the head is kept, with an ellipsis", () => {
    expect(safeUserText("🔥".repeat(500_000), 5)).toBe("🔥🔥🔥🔥…");
    expect(safeUserText("🔥".repeat(5), 5)).toBe("🔥🔥🔥🔥🔥");
  });
});
