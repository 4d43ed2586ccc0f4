// The export holds every row of every table that can hold a user's data (checked against the
// database catalogue), never the key, and every field it writes is described in PRIVACY.md.
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { exportUserData, packExport } from "../../src/privacy/index.ts";
import { SECTION_TABLES } from "../../src/privacy/userData.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { holdsUsers, userTables } from "./catalogue.ts";
import { seedEverything, type SeededUser } from "./fixtures.ts";

let db: TestDatabase;
let alice: SeededUser;
const logger = createLogger({ level: "silent" });
const now = () => new Date("2026-11-27T12:00:00Z");
const PRIVACY = readFileSync(path.join(import.meta.dirname, "..", "..", "PRIVACY.md"), "utf8");

type Doc = Record<string, unknown>;

async function exported(discordId: string): Promise<Doc> {
  const result = await exportUserData({ prisma: db.prisma, logger, now }, { discordUserId: discordId });
  if (!result.found) throw new Error("nothing exported");
  expect(result.files).toHaveLength(1);
  return JSON.parse((result.files[0]?.data ?? Buffer.alloc(0)).toString("utf8")) as Doc;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const rowsOf = (doc: Doc, section: string): Doc[] => {
  const v = doc[section];
  return Array.isArray(v) ? (v as Doc[]) : v === null || v === undefined ? [] : [v as Doc];
};

/** The backticked field names of one "### `section`" table of PRIVACY.md ("" = the top table). */
function documentedFields(section: string): string[] {
  const body =
    section === ""
      ? (/## Export format\n([\s\S]*?)\n### /.exec(PRIVACY)?.[1] ?? "")
      : (new RegExp("### `" + section + "`\\n([\\s\\S]*?)(?=\\n### |\\n## |$)").exec(PRIVACY)?.[1] ?? "");
  return [...body.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1] as string);
}

beforeAll(async () => {
  db = await freshDatabase();
  alice = await seedEverything(db.prisma, {
    discordId: "812345678901230001",
    platformId: "42420000000901",
    tag: "alice",
    armed: "shadow",
  });
  await seedEverything(db.prisma, {
    discordId: "812345678901230002",
    platformId: "42420000000902",
    tag: "bob",
  });
});

afterAll(async () => {
  await db?.close();
});

describe("/account export's document", () => {
  it("GIVEN every table the catalogue says can hold a user WHEN exported THEN each is a section AND holds exactly the user's rows with every column", async () => {
    const doc = await exported(alice.discordId);
    const tables = (await userTables(db.pool)).filter(holdsUsers);
    const exportedTables = Object.values(SECTION_TABLES) as string[];
    expect(tables.map((t) => t.table).filter((t) => !exportedTables.includes(t))).toEqual([]);

    for (const [section, table] of Object.entries(SECTION_TABLES)) {
      const { rows } = await db.pool.query<Doc>(
        table === "users" ? `SELECT * FROM users WHERE id = $1` : `SELECT * FROM ${table} WHERE user_id = $1`,
        [alice.userId],
      );
      const got = rowsOf(doc, section);
      expect({ section, rows: got.length }).toEqual({ section, rows: rows.length });
      expect(got.length).toBeGreaterThan(0);
      const secret = new Set(["encrypted_key", "key_id", "key_fingerprint"]);
      for (const column of Object.keys(rows[0] ?? {}).filter((c) => !secret.has(c))) {
        expect(Object.keys(got[0] ?? {}), `${section}.${camel(column)}`).toContain(camel(column));
      }
      // The same rows, by id; values are spot-checked below (cents as numbers, times as text).
      const key = table === "auto_accept_settings" ? "user_id" : "id";
      const dbIds = rows.map((r) => String(r[key])).sort();
      expect(got.map((r) => String(r[camel(key)])).sort()).toEqual(dbIds);
    }
    const rule = rowsOf(doc, "watchRules")[0];
    expect(rule).toMatchObject({ name: "rule alice", armMode: "shadow", filters: { maxPriceCents: 4_000 } });
    expect(rowsOf(doc, "purchases")[0]).toMatchObject({ totalCents: 2_500, unitPriceCents: 2_500 });
    expect(typeof rowsOf(doc, "alerts")[0]?.["createdAt"]).toBe("string");
  });

  it("GIVEN a linked key WHEN exported THEN the file says only that it is linked and how it ends, never the sealed key", async () => {
    const doc = await exported(alice.discordId);
    const text = JSON.stringify(doc);
    expect((doc["account"] as Doc)["key"]).toBe("linked, ends in …wxyz");
    expect(text).not.toContain("sealed-alice-secret");
    expect(text).not.toContain("encryptedKey");
    expect(text).not.toContain("keyId");
  });

  it("GIVEN two users WHEN one exports THEN nothing of the other's is in the file", async () => {
    const text = JSON.stringify(await exported(alice.discordId));
    expect(text).not.toContain("812345678901230002");
    expect(text).not.toContain("bob");
  });

  it("GIVEN the exported document WHEN PRIVACY.md is read THEN every section and every field has a line saying what it is", async () => {
    const doc = await exported(alice.discordId);
    const top = Object.keys(doc).filter((k) => !(k in SECTION_TABLES));
    expect(top.filter((k) => !documentedFields("").includes(k))).toEqual([]);
    for (const section of Object.keys(SECTION_TABLES)) {
      const fields = new Set(rowsOf(doc, section).flatMap((r) => Object.keys(r)));
      const documented = documentedFields(section);
      expect({ section, undocumented: [...fields].filter((f) => !documented.includes(f)) }).toEqual({
        section,
        undocumented: [],
      });
    }
  });

  it("GIVEN nothing stored about a user WHEN they export THEN there is nothing to send and no row is created", async () => {
    const result = await exportUserData(
      { prisma: db.prisma, logger, now },
      { discordUserId: "812345678901239999" },
    );
    expect(result.found).toBe(false);
    expect(await db.prisma.user.count({ where: { discordId: "812345678901239999" } })).toBe(0);
  });
});

describe("packing an export for Discord's upload limit", () => {
  const json = JSON.stringify({ rows: Array.from({ length: 2_000 }, (_, i) => ({ i, note: `row ${i}` })) });

  it("GIVEN a document under the limit WHEN packed THEN it is one plain JSON file", () => {
    const packed = packExport(json, json.length);
    expect(packed.compressed).toBe(false);
    expect(packed.files.map((f) => f.name)).toEqual(["account-export.json"]);
  });

  it("GIVEN a document over the limit WHEN packed THEN it is one gzip file that unzips to it", () => {
    const packed = packExport(json, json.length - 1);
    expect(packed.files.map((f) => f.name)).toEqual(["account-export.json.gz"]);
    expect(gunzipSync(packed.files[0]?.data ?? Buffer.alloc(0)).toString("utf8")).toBe(json);
  });

  it("GIVEN even the gzip over the limit WHEN packed THEN its parts, each within the limit, join into the gzip of the document", () => {
    const packed = packExport(json, 1_000);
    expect(packed.files.length).toBeGreaterThan(1);
    expect(packed.files.every((f) => f.data.length <= 1_000)).toBe(true);
    expect(packed.files[0]?.name).toBe(`account-export.json.gz.part1of${packed.files.length}`);
    const joined = Buffer.concat(packed.files.map((f) => f.data));
    expect(gunzipSync(joined).toString("utf8")).toBe(json);
  });
});
