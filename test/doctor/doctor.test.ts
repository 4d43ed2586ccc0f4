// The contract doctor against a marketplace of our own: the sandbox as the live service is known to
// behave (exit 0), then changed without notice through its control API (each change named, exit 1).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DoctorConfigError, loadDoctorConfig } from "../../src/config/doctor.ts";
import type { DoctorConfig } from "../../src/config/doctor.ts";
import type { DoctorReport } from "../../src/doctor/report.ts";
import { redactKeys, runDoctor } from "../../src/doctor/run.ts";
import { EXAMPLE_ITEM, startSandbox } from "../../src/sandbox/index.ts";
import type { DriftSpec, Sandbox } from "../../src/sandbox/index.ts";

const run = promisify(execFile);

let sandbox: Sandbox;
let config: DoctorConfig;

beforeAll(async () => {
  sandbox = await startSandbox();
  const [alice, bob] = sandbox.users;
  config = {
    baseUrl: sandbox.baseUrl,
    apiKey: alice?.apiKey ?? "",
    secondApiKey: bob?.apiKey,
    json: false,
    item: undefined,
    timeoutMs: 5_000,
  };
});

afterEach(() => sandbox.control.clearDrift());

afterAll(async () => {
  await sandbox?.close();
});

/** Drift asked for as a tester would: over the sandbox's control API. */
async function drift(spec: DriftSpec): Promise<void> {
  const res = await fetch(`${sandbox.controlUrl}/drift`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  expect(res.status).toBe(200);
}

async function doctorWith(
  spec: DriftSpec,
): Promise<{ report: DoctorReport; exitCode: number; text: string }> {
  await drift(spec);
  return runDoctor(config);
}

const driftOf = (report: DoctorReport, endpoint: string) =>
  report.drift.filter((d) => d.endpoint === endpoint).map((d) => `${d.field} ${d.kind}`);
const verdictOf = (report: DoctorReport, name: string) => report.verdicts.find((v) => v.name === name);

describe("the doctor against a marketplace that behaves as the live service is known to", () => {
  it("GIVEN the sandbox as-is WHEN the doctor runs THEN every endpoint answers 2xx, nothing drifted, every verdict is works and it exits 0", async () => {
    const { report, exitCode } = await runDoctor(config);

    expect(report.drift).toEqual([]);
    expect(exitCode).toBe(0);
    const probed = report.endpoints.filter((e) => e.status !== "skipped");
    expect(probed.length).toBeGreaterThanOrEqual(20);
    expect(probed.every((e) => typeof e.status === "number" && e.status >= 200 && e.status < 300)).toBe(true);
    expect(new Set(probed.map((e) => e.key))).toEqual(new Set(["main", "second"]));
    expect(report.verdicts.filter((v) => v.verdict !== "works")).toEqual([]);
    expect(report.verdicts.map((v) => v.name)).toEqual(
      expect.arrayContaining(["/search", "/buy", "listing", "outbid"]),
    );
    const listings = report.endpoints.find((e) => e.endpoint === "GET /listings");
    expect(listings?.rateLimit?.resetUnit).toBe("epoch seconds");
    expect(Number(listings?.rateLimit?.limit)).toBeGreaterThan(0);
  });

  it("GIVEN an odd and an unreadable listing among the normal ones (as live) WHEN the doctor runs THEN the unreadable one is listed, nothing is called drift and it exits 0", async () => {
    sandbox.control.createOddListing();
    const { id } = sandbox.control.createUnreadableListing();

    const { report, exitCode } = await runDoctor(config);

    expect(report.drift).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report.unreadableElements).toContainEqual({ endpoint: "GET /listings", field: "listing: price" });
    expect(id).toMatch(/^\d+$/);
  });

  it("GIVEN a marketplace without the who-am-i route (it is not in the spec) WHEN the doctor runs THEN that is a note, /account is degraded, and it exits 0", async () => {
    const { report, exitCode } = await doctorWith({ dropRoutes: ["GET /me"] });

    expect(exitCode).toBe(0);
    expect(report.drift).toEqual([]);
    expect(report.endpoints.find((e) => e.endpoint === "GET /me")?.note).toMatch(
      /^not offered here \(status 404\)/,
    );
    expect(verdictOf(report, "/account")).toEqual({
      name: "/account",
      kind: "command",
      verdict: "degraded",
      because: ["the account's name and platform id"],
    });
  });

  it("GIVEN the stall read answers 403 (a private stall) WHEN the doctor runs THEN that is a note, /stall is degraded as not checked, and it exits 0", async () => {
    sandbox.control.injectFault({ path: "/users/*/stall", kind: "status", status: 403, times: 1 });

    const { report, exitCode } = await runDoctor({ ...config, secondApiKey: undefined });

    expect(exitCode).toBe(0);
    expect(report.endpoints.find((e) => e.endpoint === "GET /users/{platform_id}/stall")?.note).toMatch(
      /403/,
    );
    expect(verdictOf(report, "/stall")?.verdict).toBe("degraded");
    expect(verdictOf(report, "/stall")?.because[0]).toMatch(
      /^not checked: GET \/users\/\{platform_id\}\/stall/,
    );
  });

  it("GIVEN the service answers 429 once WHEN the doctor reads that route THEN it waits the Retry-After, reads again and exits 0", async () => {
    sandbox.control.injectFault({
      path: "/me/offers-timeline",
      kind: "rate_limit",
      retryAfterSeconds: 1,
      times: 1,
    });

    const { report, exitCode } = await runDoctor({ ...config, secondApiKey: undefined });

    expect(exitCode).toBe(0);
    const timeline = report.endpoints.find((e) => e.endpoint === "GET /me/offers-timeline");
    expect(timeline?.status).toBe(200);
    expect(timeline?.note).toBe("waited 1 s for the rate limit");
  });

  it("GIVEN a doctor run WHEN the sandbox's received requests are listed THEN every one was a read (GET, or the POST that only reads similar orders)", async () => {
    sandbox.control.resetStats();

    await runDoctor(config);

    const routes = Object.keys(sandbox.control.stats().routes);
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const writes = routes.filter((r) => !r.startsWith("GET ") && r !== "POST /buy-orders/similar-orders");
    expect(writes).toEqual([]);
  });

  it("GIVEN the human table WHEN rendered THEN it shows each endpoint, the verdicts and the result line, and never a key", async () => {
    const { text } = await runDoctor(config);

    expect(text).toMatch(/^GET \/listings\/\{listing_id\}\s+main\s+200\s/m);
    expect(text).toMatch(/command\s+\/buy\s+works/);
    expect(text).toContain("Result: OK");
    expect(text).not.toContain(config.apiKey);
    expect(text).not.toContain(config.secondApiKey);
  });
});

describe("the doctor against a marketplace changed without notice", () => {
  it("GIVEN item fields renamed WHEN the doctor runs THEN it names each missing field with the likely rename, marks /search broken and exits 1", async () => {
    const { report, exitCode } = await doctorWith({
      renameFields: {
        "item.market_hash_name": "name",
        "item.float_value": "float",
        "item.paint_seed": "pattern",
        "item.stickers": "applied_stickers",
      },
    });

    expect(exitCode).toBe(1);
    expect(driftOf(report, "GET /listings")).toEqual(
      expect.arrayContaining([
        "data[].item.market_hash_name missing",
        "data[].item.float_value missing",
        "data[].item.paint_seed missing",
        "data[].item.stickers missing",
      ]),
    );
    expect(driftOf(report, "GET /listings/{listing_id}")).toContain("item.market_hash_name missing");
    const renamed = report.drift.find((d) => d.field === "data[].item.market_hash_name");
    expect(renamed?.seen).toContain("name");
    expect(report.unknownFields.map((u) => u.field)).toEqual(expect.arrayContaining(["data[].item.name"]));
    expect(verdictOf(report, "/search")?.verdict).toBe("broken");
    expect(verdictOf(report, "listing")?.verdict).toBe("broken");
  });

  it("GIVEN a route gone WHEN the doctor runs THEN that endpoint is named with its status, the commands on it are broken and it exits 1", async () => {
    const { report, exitCode } = await doctorWith({ dropRoutes: ["GET /me/trades"] });

    expect(exitCode).toBe(1);
    // Read with both keys: named once for each.
    expect(report.drift.filter((d) => d.endpoint === "GET /me/trades")).toEqual([
      expect.objectContaining({ field: "(status)", kind: "status", seen: "status 404", key: "main" }),
      expect.objectContaining({ field: "(status)", kind: "status", seen: "status 404", key: "second" }),
    ]);
    expect(report.endpoints.find((e) => e.endpoint === "GET /me/trades")?.status).toBe(404);
    expect(verdictOf(report, "/trades")?.verdict).toBe("broken");
    expect(verdictOf(report, "trade")?.verdict).toBe("broken");
    expect(verdictOf(report, "/search")?.verdict).toBe("works");
  });

  it("GIVEN prices sent as dollar strings WHEN the doctor runs THEN the money fields are named as changed type and every money action is broken; exit 1", async () => {
    const { report, exitCode } = await doctorWith({ retypeFields: { price: "dollars" } });

    expect(exitCode).toBe(1);
    const price = report.drift.find((d) => d.endpoint === "GET /listings" && d.field === "data[].price");
    expect(price).toMatchObject({
      kind: "type",
      expected: "integer cents",
      money: ["buy", "bid", "buyOrder", "offer"],
    });
    expect(price?.seen).toMatch(/^string "9+\.99"$/);
    for (const name of ["/buy", "/bid", "/offer", "/buyorder", "auto_buy"]) {
      expect(verdictOf(report, name)?.verdict, name).toBe("broken");
    }
  });

  it("GIVEN the reset header sent in milliseconds WHEN the doctor runs THEN the inferred unit is shown, the header is named as drift and it exits 1", async () => {
    const { report, exitCode } = await doctorWith({ resetUnit: "epoch-milliseconds" });

    expect(exitCode).toBe(1);
    expect(report.endpoints.find((e) => e.endpoint === "GET /me")?.rateLimit?.resetUnit).toBe(
      "epoch milliseconds",
    );
    expect(driftOf(report, "GET /listings")).toContain("header:x-ratelimit-reset type");
    expect(verdictOf(report, "/trades")).toMatchObject({ verdict: "degraded" });
  });

  it("GIVEN the same changes at once WHEN the doctor runs as `npm run doctor -- --json` THEN it names each, exits 1 and prints no key", async () => {
    await drift({
      renameFields: { "item.market_hash_name": "name" },
      retypeFields: { price: "dollars" },
      dropRoutes: ["GET /history/{market_hash_name}/sales"],
    });
    const failed = await run("npx", ["tsx", "src/doctor/cli.ts", "--json", "--item", EXAMPLE_ITEM], {
      env: {
        ...process.env,
        MARKET_BASE_URL: config.baseUrl,
        MARKET_API_KEY: config.apiKey,
        MARKET_SECOND_API_KEY: "",
      },
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string }) => error,
    );

    expect(failed?.code).toBe(1);
    const stdout = failed?.stdout ?? "";
    expect(stdout).not.toContain(config.apiKey);
    const report = JSON.parse(stdout) as DoctorReport;
    const named = report.drift.map((d) => `${d.endpoint} ${d.field} ${d.kind}`);
    expect(named).toEqual(
      expect.arrayContaining([
        "GET /listings data[].item.market_hash_name missing",
        "GET /listings data[].price type",
        "GET /history/{market_hash_name}/sales (status) status",
      ]),
    );
  });
});

describe("the doctor and money units: never guessed", () => {
  const LEDGER = "GET /me/transactions";
  const OFFSET = "transactions[].balance_offset";

  for (const [as, example] of [
    ["dollars", 'a dollar string: 500000 becomes "5000.00"'],
    ["string", 'a string of cents: 500000 becomes "500000"'],
    ["fraction", "dollars as a number: 500000 becomes 5000, a hundredth of the balance"],
  ] as const) {
    it(`GIVEN the ledger's balance_offset sent as ${example} WHEN the doctor runs THEN it names balance_offset as changed, the ledger's features are broken and it exits 1`, async () => {
      const { report, exitCode, text } = await doctorWith({ retypeFields: { balance_offset: as } });

      expect(exitCode).toBe(1);
      expect(report.ok).toBe(false);
      expect(report.drift).toContainEqual(
        expect.objectContaining({ endpoint: LEDGER, field: OFFSET, kind: "type", key: "main" }),
      );
      expect(report.drift.find((d) => d.field === OFFSET)?.expected).toMatch(/^signed integer cents/);
      expect(verdictOf(report, "/portfolio")?.verdict).toBe("broken");
      expect(verdictOf(report, "reversal")?.verdict).toBe("broken");
      expect(text).toMatch(/GET \/me\/transactions\s+transactions\[\]\.balance_offset\s+type/);
      expect(text).toContain("Result: DRIFT");
    });
  }

  it("GIVEN a stall's total_price sent as a dollar string WHEN the doctor runs THEN total_price is named as changed and it exits 1", async () => {
    const { report, exitCode } = await doctorWith({ retypeFields: { total_price: "dollars" } });

    expect(exitCode).toBe(1);
    expect(driftOf(report, "GET /users/{platform_id}/stall")).toEqual(["total_price type"]);
  });

  it("GIVEN a stall answer without total_count and total_price (as an SDK allows) WHEN the doctor runs THEN that is no drift and it exits 0", async () => {
    const { report, exitCode } = await doctorWith({
      renameFields: { total_count: "listing_count", total_price: "listing_value" },
    });

    expect(driftOf(report, "GET /users/{platform_id}/stall")).toEqual([]);
    expect(exitCode).toBe(0);
    expect(verdictOf(report, "/stall")?.verdict).toBe("works");
  });

  it("GIVEN a one-letter key WHEN the doctor's report is redacted THEN the key is hidden where it stands alone and no word is cut", async () => {
    const { text } = await runDoctor({ ...config, apiKey: "e", secondApiKey: undefined });

    expect(text).toContain("Marketplace contract doctor");
    expect(text).toContain("Result:");
    expect(text).not.toMatch(/\w\[redacted\]|\[redacted\]\w/);
    expect(redactKeys("key e expects e.", ["e"])).toBe("key [redacted] expects [redacted].");
    expect(redactKeys(`sent ${config.apiKey}x`, [config.apiKey])).toBe("sent [redacted]x");
  });
});

describe("the doctor's configuration", () => {
  it("GIVEN no base URL and no key WHEN loaded THEN both problems are listed and no value is echoed", () => {
    let error: unknown;
    try {
      loadDoctorConfig([], { MARKET_SECOND_API_KEY: "second-secret-key" });
    } catch (e) {
      error = e;
    }

    expect(error).toBeInstanceOf(DoctorConfigError);
    const problems = (error as DoctorConfigError).problems.join("\n");
    expect(problems).toMatch(/MARKET_BASE_URL: required/);
    expect(problems).toMatch(/MARKET_API_KEY: required/);
    expect(problems).not.toContain("second-secret-key");
  });

  it("GIVEN a plain-http base URL on another machine WHEN loaded THEN it is refused (keys travel in a header)", () => {
    expect(() =>
      loadDoctorConfig([], { MARKET_BASE_URL: "http://market.example/api/v1", MARKET_API_KEY: "k" }),
    ).toThrow(/must use https/);
  });
});
