// The repositories (src/db/repos) are the only code that speaks Prisma: no other file of src/ or
// commands/ calls a model method (`x.watchRule.findMany`), a raw query or `$transaction`, or
// imports the generated client. Domain code takes a `Db` and calls repository functions, opening a
// transaction through withTransaction (src/db/types.ts) when several must commit together.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Where Prisma may be spoken: the repositories, the generated client, and the Db type's home. */
const ALLOWED: readonly { prefix: string; why: string }[] = [
  { prefix: "src/db/repos/", why: "the repositories" },
  { prefix: "src/generated/", why: "the generated client" },
  { prefix: "src/db/types.ts", why: "Db and withTransaction: the one place a transaction is opened" },
  {
    prefix: "src/db/writeLocks.ts",
    why: "advisory locks, a primitive beside the transaction: one writer per order or listing (ADR 045)",
  },
  { prefix: "src/db/index.ts", why: "builds the client (it imports it, it queries nothing)" },
];

const RAW = new Set(["$queryRaw", "$queryRawUnsafe", "$executeRaw", "$executeRawUnsafe", "$transaction"]);
const METHODS = new Set([
  "findMany",
  "findFirst",
  "findFirstOrThrow",
  "findUnique",
  "findUniqueOrThrow",
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
  "count",
  "aggregate",
  "groupBy",
]);

/** The client's model accessors, from the schema: `model WatchRule` -> `watchRule`. */
function modelAccessors(): Set<string> {
  const schema = readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
  const names = [...schema.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1] ?? "");
  return new Set(names.map((n) => n.charAt(0).toLowerCase() + n.slice(1)));
}

/** What in `source` speaks Prisma: model method calls, raw queries and transactions, client imports. */
function prismaSpeech(fileName: string, source: string, models: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      const name = node.name.text;
      if (RAW.has(name)) found.push(`${at(node)} ${name}`);
      const target = node.expression;
      if (
        METHODS.has(name) &&
        ts.isPropertyAccessExpression(target) &&
        models.has(target.name.text) &&
        ts.isCallExpression(node.parent) &&
        node.parent.expression === node
      ) {
        found.push(`${at(node)} .${target.name.text}.${name}()`);
      }
    }
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /(^|\/)generated\/prisma(\/|$)/.test(node.moduleSpecifier.text)
    ) {
      found.push(`${at(node)} imports ${node.moduleSpecifier.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
}

describe("the repository boundary", () => {
  const models = modelAccessors();

  it("GIVEN the detector WHEN shown each way of speaking Prisma THEN it finds each, and nothing in look-alikes", () => {
    const speech = prismaSpeech(
      "sample.ts",
      [
        'import type { Prisma } from "../generated/prisma/client.ts";',
        "await db.watchRule.findMany({});",
        "await tx\n  .seedTier\n  .deleteMany({ where: {} });",
        "await deps.prisma.user.count();",
        "await db.$queryRaw`SELECT 1`;",
        "await prisma.$transaction(async (tx) => tx);",
        "await db.$executeRawUnsafe('x');",
        // Look-alikes: not a model, not a call, a comment, a string.
        "rules.count(); const m = db.watchRule.findMany; // db.user.findMany()",
        "const s = 'db.outbox.count()';",
      ].join("\n"),
      models,
    );
    expect(speech).toEqual([
      "sample.ts:1 imports ../generated/prisma/client.ts",
      "sample.ts:2 .watchRule.findMany()",
      "sample.ts:3 .seedTier.deleteMany()",
      "sample.ts:6 .user.count()",
      "sample.ts:7 $queryRaw",
      "sample.ts:8 $transaction",
      "sample.ts:9 $executeRawUnsafe",
    ]);
  });

  it("GIVEN src/ and commands/ WHEN read THEN only the repositories (and the Db type's home) speak Prisma", () => {
    const offences = new Map<string, string[]>();
    for (const file of [...sourceFiles("src"), ...sourceFiles("commands")]) {
      if (ALLOWED.some((a) => file.startsWith(a.prefix))) continue;
      const speech = prismaSpeech(file, readFileSync(path.join(root, file), "utf8"), models);
      if (speech.length > 0) offences.set(file, speech);
    }
    const unexpected = [...offences].flatMap(([, s]) => s);
    expect(unexpected, "move these queries into a repository in src/db/repos").toEqual([]);
  });

  it("GIVEN the allowed places WHEN listed THEN each exists (a rename cannot widen the boundary silently)", () => {
    const files = new Set([...sourceFiles("src")]);
    for (const a of ALLOWED.filter((x) => x.prefix.endsWith(".ts"))) expect(files.has(a.prefix)).toBe(true);
  });
});
