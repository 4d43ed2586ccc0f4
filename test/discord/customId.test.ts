// The custom-id codec: compact, round-trips, refuses anything malformed.
import { describe, expect, it } from "vitest";
import {
  CustomIdError,
  decodeCustomId,
  encodeCustomId,
  isExpired,
  MAX_CUSTOM_ID_LENGTH,
} from "../../src/discord/customId.ts";

const owner = "284102390284013568";

describe("custom id codec", () => {
  it("GIVEN an id with an expiry WHEN encoded and decoded THEN the same data comes back, to the second", () => {
    const expiresAt = Date.UTC(2030, 0, 1, 12, 0, 0);
    const text = encodeCustomId({ action: "trade.accept", subject: "9876543210", owner, expiresAt });
    expect(text).toBe(`trade.accept:9876543210:${owner}:${(expiresAt / 1000).toString(36)}`);
    expect(decodeCustomId(text)).toEqual({
      ok: true,
      id: { action: "trade.accept", subject: "9876543210", owner, expiresAt },
    });
  });

  it("GIVEN an id without subject or expiry WHEN decoded THEN subject is empty and there is no expiry", () => {
    expect(decodeCustomId(`acct.check::${owner}`)).toEqual({
      ok: true,
      id: { action: "acct.check", subject: "", owner },
    });
  });

  it.each([
    ["no parts", "garbage"],
    ["missing owner", "acct.check:1"],
    ["owner not a snowflake", "acct.check:1:alice"],
    ["too many parts", `a:b:${owner}:zz:extra`],
    ["bad action", `Acct:1:${owner}`],
    ["bad expiry", `acct.check:1:${owner}:ZZ!`],
    ["subject too long", `a:${"x".repeat(46)}:${owner}`],
    ["over 100 characters", `a:${"x".repeat(120)}:${owner}`],
  ])("GIVEN %s WHEN decoded THEN it is malformed", (_why, text) => {
    expect(decodeCustomId(text)).toEqual({ ok: false, reason: "malformed" });
  });

  it("GIVEN parts outside the format WHEN encoded THEN it throws a CustomIdError instead of producing a bad id", () => {
    expect(() => encodeCustomId({ action: "a:b", subject: "", owner })).toThrow(CustomIdError);
    expect(() => encodeCustomId({ action: "a", subject: "has space", owner })).toThrow(CustomIdError);
    expect(() => encodeCustomId({ action: "a", subject: "", owner: "me" })).toThrow(CustomIdError);
  });

  it("GIVEN the longest parts allowed WHEN encoded THEN it still fits Discord's 100 characters", () => {
    const text = encodeCustomId({
      action: `a${"b".repeat(23)}`,
      subject: "s".repeat(45),
      owner: "1".repeat(20),
      expiresAt: Date.UTC(2100, 0, 1),
    });
    expect(text.length).toBeLessThanOrEqual(MAX_CUSTOM_ID_LENGTH);
    expect(decodeCustomId(text).ok).toBe(true);
  });

  it("GIVEN an expiry WHEN checked before and after THEN only after is expired", () => {
    const id = { action: "a", subject: "", owner, expiresAt: 2_000_000 };
    expect(isExpired(id, 1_999_999)).toBe(false);
    expect(isExpired(id, 2_000_000)).toBe(true);
    expect(isExpired({ action: "a", subject: "", owner }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});
