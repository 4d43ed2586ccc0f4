// The per-user suggestion cache: one read per list and TTL, a stale list answered at once while a
// fresh one loads, a slow read never holding the keystroke, a failed read retried next time; and
// choice labels within Discord's 100 characters.
import { describe, expect, it } from "vitest";
import { choiceLabel, createSuggestionCache } from "../../src/discord/suggest.ts";

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(err: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const ignore = () => undefined;

describe("createSuggestionCache", () => {
  it("GIVEN a list read moments ago WHEN asked again within the TTL THEN it is answered without a second read", async () => {
    let now = 0;
    const cache = createSuggestionCache({ now: () => now, ttlMs: 1_000, waitMs: 500 });
    let reads = 0;
    const load = async () => [++reads];
    expect(await cache.get("alice:orders", load, ignore)).toEqual([1]);
    now = 999;
    expect(await cache.get("alice:orders", load, ignore)).toEqual([1]);
    expect(reads).toBe(1);
    expect(await cache.get("bob:orders", load, ignore)).toEqual([2]);
  });

  it("GIVEN a read slower than the wait WHEN a keystroke asks THEN it gets nothing at once, and the next keystroke gets the list", async () => {
    const cache = createSuggestionCache({ ttlMs: 10_000, waitMs: 20 });
    const slow = deferred<string[]>();
    let reads = 0;
    const load = () => {
      reads += 1;
      return slow.promise;
    };
    expect(await cache.get("alice:trades", load, ignore)).toBeUndefined();
    slow.resolve(["9007199254741500"]);
    await slow.promise;
    expect(await cache.get("alice:trades", load, ignore)).toEqual(["9007199254741500"]);
    expect(reads).toBe(1);
  });

  it("GIVEN an expired list WHEN asked THEN the old list is answered at once while one fresh read runs", async () => {
    let now = 0;
    const cache = createSuggestionCache({ now: () => now, ttlMs: 100, waitMs: 1_000 });
    expect(await cache.get("alice:assets", async () => ["old"], ignore)).toEqual(["old"]);
    now = 500;
    const fresh = deferred<string[]>();
    let reads = 0;
    const load = () => {
      reads += 1;
      return fresh.promise;
    };
    expect(await cache.get("alice:assets", load, ignore)).toEqual(["old"]);
    expect(await cache.get("alice:assets", load, ignore)).toEqual(["old"]);
    expect(reads).toBe(1);
    fresh.resolve(["new"]);
    await fresh.promise;
    expect(await cache.get("alice:assets", load, ignore)).toEqual(["new"]);
  });

  it("GIVEN a read that fails WHEN asked THEN nothing is answered, the failure is reported, and the next ask reads again", async () => {
    const cache = createSuggestionCache({ waitMs: 1_000 });
    const errors: unknown[] = [];
    const boom = new Error("upstream");
    expect(
      await cache.get(
        "alice:auctions",
        () => Promise.reject(boom),
        (e) => errors.push(e),
      ),
    ).toBeUndefined();
    expect(errors).toEqual([boom]);
    expect(await cache.get("alice:auctions", async () => ["ok"], ignore)).toEqual(["ok"]);
  });
});

describe("forget", () => {
  it("GIVEN lists of two users WHEN one user's are forgotten THEN only theirs are read again", async () => {
    const cache = createSuggestionCache({ ttlMs: 60_000, waitMs: 1_000 });
    let reads = 0;
    const load = async () => [++reads];
    await cache.get("111:orders", load, ignore);
    await cache.get("111:trades:cancel", load, ignore);
    await cache.get("222:orders", load, ignore);
    cache.forget("111:");
    expect(await cache.get("222:orders", load, ignore)).toEqual([3]);
    expect(await cache.get("111:orders", load, ignore)).toEqual([4]);
    expect(reads).toBe(4);
  });
});

describe("choiceLabel", () => {
  it("GIVEN a short item WHEN labelled THEN item, details and id are all shown", () => {
    expect(choiceLabel("Falcon Rifle | Ember Tide (Pristine)", " · $95.00 × 2", "9007199254741400")).toBe(
      "Falcon Rifle | Ember Tide (Pristine) · $95.00 × 2 · 9007199254741400",
    );
  });

  it("GIVEN a very long item name WHEN labelled THEN the label is at most 100 characters and keeps the price and state whole", () => {
    const label = choiceLabel(
      `Buying ${"Sticker | Very Long Name ".repeat(10)}`,
      " · $12.34 · queued",
      "9007199254741500",
    );
    expect([...label].length).toBeLessThanOrEqual(100);
    expect(label.endsWith(" · $12.34 · queued")).toBe(true);
    expect(label).toContain("…");
  });

  it("GIVEN control characters in a name WHEN labelled THEN they are replaced by spaces", () => {
    expect(choiceLabel("Odd\nName\u0007", "", "1")).toBe("Odd Name  · 1");
  });
});
