import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLoop } from "../../../src/runtime/loop.ts";
import { createLogger } from "../../../src/log.ts";

const log = createLogger({ level: "silent" });

describe("background loop rhythm", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("GIVEN a timer that fires late on a busy machine WHEN the pass ends THEN the loop is told the time since the pass was due, so it keeps a fixed rate", async () => {
    // The loop's own clock: each pass starts 30 ms after its timer was due and takes 20 ms.
    let t = 1_000_000;
    const starts: number[] = [];
    const told: number[] = [];
    const loop = createLoop(
      "test",
      log,
      () => {
        t += 30;
        starts.push(t);
        t += 20;
        return Promise.resolve();
      },
      (sinceDueMs) => {
        told.push(sinceDueMs);
        return 1_000 - sinceDueMs;
      },
      () => t,
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 3; i++) {
      // The timer fires on the fake clock after the delay the loop chose; the loop's clock moves with it.
      const delay = 1_000 - (told.at(-1) as number);
      t += delay;
      await vi.advanceTimersByTimeAsync(delay);
    }
    await loop.stop();

    expect(told).toEqual([50, 50, 50, 50]);
    // Each pass is due 1,000 ms after the one before, however late each timer fired.
    expect(starts.slice(1).map((s, i) => s - (starts[i] as number))).toEqual([1_000, 1_000, 1_000]);
  });

  it("GIVEN a kick during a pass WHEN that pass ends THEN the next runs at once and is told its time from the kick's end", async () => {
    vi.useRealTimers();
    let t = 0;
    const told: number[] = [];
    let passes = 0;
    let resolve = () => {};
    const secondEnded = new Promise<void>((r) => (resolve = r));
    const loop = createLoop(
      "test",
      log,
      () => {
        passes += 1;
        t += 10;
        if (passes === 1) loop.kick();
        return Promise.resolve();
      },
      (sinceDueMs) => {
        told.push(sinceDueMs);
        if (told.length === 1) resolve();
        return 60_000;
      },
      () => t,
    );
    loop.start();
    await secondEnded;
    await loop.stop();

    expect(passes).toBe(2);
    // The first pass ended with the kick pending: the next was due then (10) and took 10 more,
    // so it is told 10, not the 20 since the first began.
    expect(told).toEqual([10]);
  });

  it("GIVEN a loop WHEN it is not started, runs a pass, is kicked or waits for its timer THEN idle() says whether only a timed pass is ahead", async () => {
    vi.useRealTimers();
    let release = () => {};
    let entered = () => {};
    const inPass = new Promise<void>((r) => (entered = r));
    const passes: number[] = [];
    const loop = createLoop(
      "test",
      log,
      async () => {
        passes.push(passes.length + 1);
        if (passes.length === 1) {
          entered();
          await new Promise<void>((r) => (release = r));
        }
      },
      () => 60_000,
    );
    expect(loop.idle()).toBe(false);
    loop.start();
    expect(loop.idle()).toBe(false); // the first pass is due at once
    await inPass;
    expect(loop.idle()).toBe(false); // running
    loop.kick();
    release();
    await vi.waitFor(() => {
      expect(passes).toEqual([1, 2]);
      expect(loop.idle()).toBe(true); // the kicked pass ran; the next is a minute away
    });
    await loop.stop();
    expect(loop.idle()).toBe(false);
  });
});
