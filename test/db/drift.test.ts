import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffSchemas } from "../../src/db/schemaDiff.ts";
import {
  emptyDatabase,
  freshDatabase,
  testServerUrl,
  type EmptyDatabase,
  type TestDatabase,
} from "../support/db.ts";
import { compareSchemas, describeSchema, type SchemaDescription } from "./catalog.ts";

const SCHEMA = path.resolve(import.meta.dirname, "../../prisma/schema.prisma");

/**
 * What the migrations create that schema.prisma cannot describe (partial indexes), each named in
 * a comment of its model there, with the definition the migrations must give it.
 */
const MIGRATIONS_ONLY = new Map([
  [
    "index users.users_active_platform_id_key",
    "CREATE UNIQUE INDEX users_active_platform_id_key ON public.users USING btree (platform_id) WHERE ((status = 'active'::link_status) AND (platform_id IS NOT NULL))",
  ],
]);

/** A database built straight from a schema file, the way Prisma would create it. */
async function databaseFromSchema(schemaFile: string): Promise<EmptyDatabase> {
  const sql = await diffSchemas({ from: "empty", to: schemaFile, serverUrl: testServerUrl() });
  const db = await emptyDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
  return db;
}

describe("schema drift", () => {
  let migrated: TestDatabase;
  let fromSchema: EmptyDatabase;
  let migratedShape: SchemaDescription;
  const cleanup: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    migrated = await freshDatabase();
    fromSchema = await databaseFromSchema(SCHEMA);
    cleanup.push(
      () => migrated.close(),
      () => fromSchema.close(),
    );
    migratedShape = await describeSchema(migrated.url);
  });
  afterAll(async () => {
    await Promise.all(cleanup.map((f) => f()));
  });

  it("GIVEN schema.prisma and the migrations THEN the migrated database matches the schema model by model, column by column", async () => {
    const expected = await describeSchema(fromSchema.url);
    // Sanity: the description really covers the model (tables, columns, keys, indexes, enums).
    const kinds = new Set([...expected.keys()].map((k) => k.split(" ")[0]));
    expect(kinds).toEqual(new Set(["enum", "table", "column", "constraint", "index", "sequence"]));
    expect([...expected.keys()].filter((k) => k.startsWith("table ")).length).toBeGreaterThanOrEqual(10);

    const modelled = new Map([...migratedShape].filter(([key]) => !MIGRATIONS_ONLY.has(key)));
    expect(compareSchemas(expected, modelled)).toEqual([]);
    for (const [key, def] of MIGRATIONS_ONLY) expect(migratedShape.get(key)).toBe(def);
  });

  it("GIVEN a column added and a nullability changed in schema.prisma alone WHEN checked THEN the drift check fails naming both", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "drift-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const original = await readFile(SCHEMA, "utf8");
    const changed = original
      .replace(/(model User \{\n)/, '$1  driftProbe String? @map("drift_probe")\n')
      .replace(/(model WatchRule \{[^}]*?\n\s*name\s+)String\n/, "$1String?\n");
    expect(changed).not.toBe(original);
    const file = path.join(dir, "schema.prisma");
    await writeFile(file, changed);

    const edited = await databaseFromSchema(file);
    cleanup.push(() => edited.close());
    const problems = compareSchemas(await describeSchema(edited.url), migratedShape);

    expect(problems).toContainEqual(
      expect.stringMatching(/^missing from the migrations: column users\.drift_probe \(text NULL\)/),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(/^differs: column watch_rules\.name: schema\.prisma wants "text NULL"/),
    );
  });
});
