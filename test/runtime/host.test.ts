// The host of the background parts: started in the order registered, each told of an election,
// stopped together, the after-stop steps in order, and only then the leader lock let go.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createHost, type HostedPart } from "../../src/runtime/host.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { waitUntil } from "../alerts/engine/world.ts";

let db: TestDatabase;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  db = await freshDatabase();
});

afterAll(async () => {
  await db?.close();
});

function part(name: string, events: string[], opts: { elected?: boolean; stopGate?: Promise<void> } = {}) {
  const p: HostedPart = {
    name,
    start: () => void events.push(`${name}:start`),
    async stop() {
      events.push(`${name}:stopping`);
      await opts.stopGate;
      events.push(`${name}:stopped`);
    },
    ...(opts.elected === false ? {} : { elected: () => void events.push(`${name}:elected`) }),
  };
  return p;
}

describe("the background host", () => {
  it("GIVEN three parts WHEN the host starts, is elected and stops THEN they start in order, the two with an election hook hear it, all stop together, the after-stop steps run in order after the slowest, and leading ends", async () => {
    const events: string[] = [];
    let open!: () => void;
    const slow = new Promise<void>((resolve) => (open = resolve));
    const host = createHost({ logger, leader: { url: db.url, checkIntervalMs: 50 } });
    host.register(part("a", events));
    host.register(part("b", events, { elected: false, stopGate: slow }));
    host.register(part("c", events));
    host.afterStop(async () => void events.push("after:1"));
    host.afterStop(async () => void events.push("after:2"));
    expect(host.leading()).toBe(false);

    host.start();
    expect(events.slice(0, 3)).toEqual(["a:start", "b:start", "c:start"]);
    await waitUntil(() => host.leading(), 10_000, "the host to lead");
    await waitUntil(() => events.includes("c:elected"), 10_000, "the election to reach the parts");
    expect(events.filter((e) => e.endsWith(":elected"))).toEqual(["a:elected", "c:elected"]);

    const stopping = host.stop();
    await waitUntil(() => events.includes("c:stopped"), 10_000, "the quick parts to stop");
    expect(events).not.toContain("after:1"); // b is still stopping
    open();
    await stopping;

    const tail = events.slice(events.indexOf("b:stopped"));
    expect(tail).toEqual(["b:stopped", "after:1", "after:2"]);
    expect(events.filter((e) => e.endsWith(":stopping"))).toHaveLength(3);
    expect(host.leading()).toBe(false);
  });

  it("GIVEN a started host WHEN a part registers late THEN it is refused by name, never silently left unstarted", async () => {
    const host = createHost({ logger, leader: { url: db.url, checkIntervalMs: 60_000 } });
    host.start();
    try {
      expect(() => host.register(part("late", []))).toThrow("part late registered after the host started");
    } finally {
      await host.stop();
    }
  });
});
