// Finds a user anywhere in the database by walking its catalogue (information_schema), so a table
// added later is searched without anyone remembering to list it.
import type pg from "pg";

export interface UserTable {
  readonly table: string;
  /** Columns holding the internal user id: foreign keys to users(id) and *user_id columns. */
  readonly userRefs: readonly string[];
  readonly discordIds: readonly string[];
  readonly platformIds: readonly string[];
}

export interface Identity {
  readonly userId: number;
  readonly discordId: string;
  /** Marketplace id, when linked. */
  readonly platformId?: string;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Every table of the public schema and its columns that can name a user. */
export async function userTables(pool: pg.Pool): Promise<UserTable[]> {
  const tables = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'
      ORDER BY table_name`,
  );
  const fks = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT kcu.table_name, kcu.column_name
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu
         ON kcu.constraint_name = tc.constraint_name AND kcu.constraint_schema = tc.constraint_schema
       JOIN information_schema.constraint_column_usage ccu
         ON ccu.constraint_name = tc.constraint_name AND ccu.constraint_schema = tc.constraint_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'
        AND ccu.table_name = 'users' AND ccu.column_name = 'id'`,
  );
  const columns = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`,
  );
  return tables.rows.map(({ table_name: table }) => {
    const cols = columns.rows.filter((c) => c.table_name === table).map((c) => c.column_name);
    const refs = new Set(fks.rows.filter((f) => f.table_name === table).map((f) => f.column_name));
    for (const c of cols) if (/(^|_)user_id$/.test(c)) refs.add(c);
    return {
      table,
      userRefs: [...refs].sort(),
      discordIds: cols.filter((c) => /discord.*id$/.test(c)),
      platformIds: cols.filter((c) => /(platform|market).*id$/.test(c)),
    };
  });
}

/** Tables that can hold a user's data: a user reference, a Discord id or a marketplace id column. */
export function holdsUsers(t: UserTable): boolean {
  return t.userRefs.length + t.discordIds.length + t.platformIds.length > 0;
}

/** Rows of each table that belong to the user (by any of its user columns). */
export async function ownedRows(pool: pg.Pool, who: Identity): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of (await userTables(pool)).filter(holdsUsers)) {
    const params: unknown[] = [];
    const conds = [
      ...t.userRefs.map((c) => `${ident(c)} = $${params.push(who.userId)}`),
      ...t.discordIds.map((c) => `${ident(c)} = $${params.push(who.discordId)}`),
    ];
    if (conds.length === 0) continue;
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${ident(t.table)} WHERE ${conds.join(" OR ")}`,
      params,
    );
    out.set(t.table, Number(rows[0]?.n ?? 0));
  }
  return out;
}

/**
 * Every place the user still appears, as "table.column: n": their internal id in a user column,
 * their Discord id anywhere in any row (payloads included), their marketplace id anywhere except
 * in rows other users own (an alert naming them as a listing's seller is the other user's).
 */
export async function traces(pool: pg.Pool, who: Identity): Promise<string[]> {
  const found: string[] = [];
  const check = async (label: string, sql: string, params: unknown[]) => {
    const { rows } = await pool.query<{ n: string }>(sql, params);
    const n = Number(rows[0]?.n ?? 0);
    if (n > 0) found.push(`${label}: ${n}`);
  };
  for (const t of await userTables(pool)) {
    const table = ident(t.table);
    for (const c of t.userRefs) {
      await check(`${t.table}.${c}`, `SELECT count(*) AS n FROM ${table} WHERE ${ident(c)} = $1`, [
        who.userId,
      ]);
    }
    await check(`${t.table} (any column)`, `SELECT count(*) AS n FROM ${table} t WHERE t::text LIKE $1`, [
      `%${who.discordId}%`,
    ]);
    if (who.platformId !== undefined) {
      const othersOwn =
        t.userRefs.length === 0
          ? ""
          : ` AND NOT (${t.userRefs.map((c) => `coalesce(t.${ident(c)} <> $2, false)`).join(" OR ")})`;
      await check(
        `${t.table} (marketplace id)`,
        `SELECT count(*) AS n FROM ${table} t WHERE t::text LIKE $1${othersOwn}`,
        t.userRefs.length === 0 ? [`%${who.platformId}%`] : [`%${who.platformId}%`, who.userId],
      );
    }
  }
  return found;
}
