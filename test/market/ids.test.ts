// The id's own time (docs/live-service.md): `(BigInt(id) >> 22n) + 1546300800000n` ms.
import { describe, expect, it } from "vitest";
import { snowflakeTime } from "../../src/market/ids.ts";

describe("snowflakeTime", () => {
  it("GIVEN an id made at a known instant WHEN read THEN its time is that instant to the millisecond", () => {
    const at = Date.now() - 3_600_000;
    const id = (((BigInt(at) - 1_546_300_800_000n) << 22n) | 4095n).toString();

    expect(snowflakeTime(id)?.getTime()).toBe(at);
  });

  it("GIVEN text that is no id, an id beyond 64 bits or a small counter WHEN read THEN no time is made up", () => {
    expect(snowflakeTime("abc")).toBeUndefined();
    expect(snowflakeTime("-5")).toBeUndefined();
    expect(snowflakeTime("18446744073709551616")).toBeUndefined();
    expect(snowflakeTime("4194303")).toBeUndefined();
  });
});
