// Seed tiers against Postgres: add and replace (rewriting the rules that follow), limits, bad input that changes nothing, guarded removal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addRule, type RuleChange } from "../../../src/watch/rules.ts";
import { ruleFromOptions } from "../../../src/watch/ruleOptions.ts";
import {
  listTiers,
  MAX_TIERS_PER_USER,
  removeTier,
  saveTier,
  tierNames,
  tierSeeds,
} from "../../../src/watch/tiers.ts";
import { UserFacingError } from "../../../src/errors.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const logger = createLogger({ level: "silent" });
let nextUser = 0;
const newUser = () => `82000000000000${String(++nextUser).padStart(4, "0")}`;

async function refusal(run: () => Promise<unknown>): Promise<UserFacingError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UserFacingError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("seed tiers", () => {
  it("GIVEN a rule following a tier WHEN the tier's seeds are replaced THEN the rule's stored seeds and updated_at change and the index hears of it", async () => {
    const discordId = newUser();
    const changes: RuleChange[] = [];
    const deps = { prisma: db.prisma, logger, onChange: (c: RuleChange) => void changes.push(c) };
    expect(await saveTier(deps, { discordId, name: "t1", seeds: "661, 670, 661" })).toMatchObject({
      created: true,
      seeds: [661, 670],
    });
    const tier = await tierSeeds(deps, { discordId, name: "t1" });
    const filters = ruleFromOptions({ tier: "t1" }, { tierSeeds: tier.seeds });
    const rule = await addRule(
      { ...deps, maxRulesPerUser: 5 },
      { discordId, name: "follows", filters, destination: { kind: "dm" } },
    );
    await addRule(
      { ...deps, maxRulesPerUser: 5 },
      { discordId, name: "other", filters: { paint_seeds: [661] }, destination: { kind: "dm" } },
    );
    const before = await db.prisma.watchRule.findUniqueOrThrow({ where: { id: rule.id } });
    changes.length = 0;

    const replaced = await saveTier(deps, { discordId, name: "t1", seeds: "955" });
    expect(replaced).toMatchObject({ created: false, seeds: [955], usedBy: ["follows"] });
    const after = await db.prisma.watchRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect(after.filters).toEqual({ tier: "t1", paint_seeds: [955] });
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const untouched = await db.prisma.watchRule.findFirstOrThrow({
      where: { name: "other", user: { discordId } },
    });
    expect(untouched.filters).toEqual({ paint_seeds: [661] });
    expect(changes).toEqual([
      { type: "upsert", rule: { id: rule.id, userId: after.userId, filters: after.filters, enabled: true } },
    ]);
    expect(await listTiers(deps, { discordId })).toEqual([{ name: "t1", seeds: [955], usedBy: ["follows"] }]);

    const refused = await refusal(() => removeTier(deps, { discordId, name: "t1" }));
    expect(refused.code).toBe("conflict");
    expect(refused.userMessage).toContain('"follows"');
    expect(await tierNames(deps, { discordId, prefix: "T" })).toEqual(["t1"]);
  });

  it.each([
    ["abc", '"abc"'],
    ["1.5", '"1.5"'],
    ["", "at least one seed"],
    [Array.from({ length: 101 }, (_, i) => i).join(","), "at most 100"],
  ])("GIVEN seeds %j WHEN saved THEN the user is told (%s) and nothing is stored", async (seeds, told) => {
    const discordId = newUser();
    const deps = { prisma: db.prisma, logger };
    await saveTier(deps, { discordId, name: "keep", seeds: "7" });
    const refused = await refusal(() => saveTier(deps, { discordId, name: "keep", seeds }));
    expect(refused.userMessage).toContain("`seeds`");
    expect(refused.userMessage).toContain(told);
    expect(await listTiers(deps, { discordId })).toEqual([{ name: "keep", seeds: [7], usedBy: [] }]);
  });

  it("GIVEN a tier WHEN another is saved under the same name in other letters THEN it is refused, naming the existing one", async () => {
    const discordId = newUser();
    const deps = { prisma: db.prisma, logger };
    await saveTier(deps, { discordId, name: "Blue Tier", seeds: "1" });
    const refused = await refusal(() => saveTier(deps, { discordId, name: "blue  tier", seeds: "2" }));
    expect(refused.code).toBe("conflict");
    expect(refused.userMessage).toContain('"Blue Tier"');
    expect(await listTiers(deps, { discordId })).toEqual([{ name: "Blue Tier", seeds: [1], usedBy: [] }]);
  });

  it("GIVEN the most tiers allowed WHEN one more is added THEN it is refused, and replacing one still works", async () => {
    const discordId = newUser();
    const deps = { prisma: db.prisma, logger };
    for (let i = 0; i < MAX_TIERS_PER_USER; i++)
      await saveTier(deps, { discordId, name: `t${i}`, seeds: String(i) });
    expect((await refusal(() => saveTier(deps, { discordId, name: "extra", seeds: "1" }))).code).toBe(
      "limit_reached",
    );
    expect(await saveTier(deps, { discordId, name: "t0", seeds: "99" })).toMatchObject({ created: false });
    expect(await listTiers(deps, { discordId })).toHaveLength(MAX_TIERS_PER_USER);
  });

  it("GIVEN an unused tier WHEN removed THEN it is gone; an unknown name is not found", async () => {
    const discordId = newUser();
    const deps = { prisma: db.prisma, logger };
    await saveTier(deps, { discordId, name: "gone", seeds: "5" });
    expect(await removeTier(deps, { discordId, name: "gone" })).toMatchObject({ name: "gone", seeds: [5] });
    expect(await listTiers(deps, { discordId })).toEqual([]);
    expect((await refusal(() => removeTier(deps, { discordId, name: "gone" }))).code).toBe("not_found");
    expect((await refusal(() => tierSeeds(deps, { discordId, name: "nope" }))).code).toBe("not_found");
  });
});
