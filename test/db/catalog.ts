// Describes a database's schema from pg_catalog as "object -> definition" entries, and diffs two
// descriptions; the drift test compares the migrated database with one built from schema.prisma.
import pg from "pg";

export type SchemaDescription = Map<string, string>;

const QUERIES: Array<{ sql: string }> = [
  {
    // Enums with their labels in order.
    sql: `SELECT 'enum ' || t.typname AS key, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) AS def
            FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
            JOIN pg_namespace n ON n.oid = t.typnamespace
           WHERE n.nspname = 'public' GROUP BY t.typname`,
  },
  {
    sql: `SELECT 'table ' || c.relname AS key, 'table' AS def
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'`,
  },
  {
    // Columns: type (with modifiers), nullability, default expression.
    sql: `SELECT 'column ' || c.relname || '.' || a.attname AS key,
                 format_type(a.atttypid, a.atttypmod)
                   || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE ' NULL' END
                   || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') AS def
            FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
           WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
             AND c.relname <> '_prisma_migrations'`,
  },
  {
    // Primary keys, uniques, foreign keys (with their actions) and checks.
    sql: `SELECT 'constraint ' || c.relname || '.' || k.conname AS key, pg_get_constraintdef(k.oid) AS def
            FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relname <> '_prisma_migrations'`,
  },
  {
    sql: `SELECT 'index ' || t.relname || '.' || i.relname AS key, pg_get_indexdef(i.oid) AS def
            FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
           WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'`,
  },
  {
    sql: `SELECT 'sequence ' || c.relname AS key, format_type(s.seqtypid, NULL) AS def
            FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public'`,
  },
];

export async function describeSchema(url: string): Promise<SchemaDescription> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: SchemaDescription = new Map();
    for (const { sql } of QUERIES) {
      const { rows } = await client.query<{ key: string; def: string }>(sql);
      for (const row of rows) out.set(row.key, row.def);
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Human-readable differences; empty when both databases have the same schema. */
export function compareSchemas(expected: SchemaDescription, actual: SchemaDescription): string[] {
  const problems: string[] = [];
  for (const [key, def] of expected) {
    const got = actual.get(key);
    if (got === undefined) problems.push(`missing from the migrations: ${key} (${def})`);
    else if (got !== def)
      problems.push(`differs: ${key}: schema.prisma wants "${def}", migrations give "${got}"`);
  }
  for (const [key, def] of actual) {
    if (!expected.has(key)) problems.push(`not in schema.prisma: ${key} (${def})`);
  }
  return problems.sort();
}
