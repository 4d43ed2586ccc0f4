// Rolling-update safety of migrations: finds the statements that would break the previous release
// still running on the same database (expand first, contract in a later release).

/**
 * A migration that contracts on purpose says so on a line of its own, with a note of what it
 * removes and why the release before it no longer needs it:
 *   -- contract-step: drops users.legacy_col, unused since 0.4 (expanded in 20261201...)
 */
export const CONTRACT_MARKER = /^--[ \t]*contract-step:[ \t]*(\S.*)$/m;

/**
 * Migrations written before this check existed that change the schema in place. Each was
 * reviewed: it shipped with the release that needed it, and no earlier release reads what it
 * changed in a way that breaks (see docs/operations.md, "Upgrades").
 */
export const GRANDFATHERED_MIGRATIONS: ReadonlyMap<string, string> = new Map([
  [
    "20261126122951_rule_filters_json",
    "jsonb to json for watch_rules.filters: the previous release's client reads and writes both the same way",
  ],
]);

export type DestructiveKind =
  | "drop_table"
  | "drop_column"
  | "rename_table"
  | "rename_column"
  | "not_null_without_default"
  | "set_not_null"
  | "change_type"
  | "drop_type";

export interface DestructiveChange {
  readonly kind: DestructiveKind;
  /** The statement (or ALTER TABLE action), whitespace collapsed. */
  readonly statement: string;
}

export interface MigrationSafetyFinding {
  readonly migration: string;
  readonly changes: readonly DestructiveChange[];
}

/** SQL without comments and string literals' contents, so neither can look like a statement. */
function stripSql(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^']|'')*'/g, "''");
}

/** Splits on `sep` outside parentheses. */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.replace(/\s+/g, " ").trim()).filter((p) => p !== "");
}

function alterTableActions(statement: string): { table: string; actions: string[] } | undefined {
  const m = /^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?("[^"]+"|\S+)\s+([\s\S]*)$/i.exec(statement);
  if (!m) return undefined;
  return { table: m[1] ?? "", actions: splitTopLevel(m[2] ?? "", ",") };
}

function classifyAction(action: string): DestructiveKind | undefined {
  if (/^DROP\s+(COLUMN\s+)?(?!CONSTRAINT\b)/i.test(action)) return "drop_column";
  if (/^RENAME\s+TO\b/i.test(action)) return "rename_table";
  if (/^RENAME\s+(COLUMN\s+)?(?!CONSTRAINT\b)/i.test(action)) return "rename_column";
  if (/^ADD\s+(COLUMN\s+)?(?!CONSTRAINT\b|PRIMARY\b|UNIQUE\b|FOREIGN\b|CHECK\b)/i.test(action)) {
    if (/\bNOT\s+NULL\b/i.test(action) && !/\bDEFAULT\b/i.test(action) && !/\bGENERATED\b/i.test(action))
      return "not_null_without_default";
    return undefined;
  }
  if (/^ALTER\s+(COLUMN\s+)?\S+\s+SET\s+NOT\s+NULL\b/i.test(action)) return "set_not_null";
  if (/^ALTER\s+(COLUMN\s+)?\S+\s+(SET\s+DATA\s+)?TYPE\b/i.test(action)) return "change_type";
  return undefined;
}

/** Every statement of `sql` that removes, renames or tightens what an older release relies on. */
export function destructiveChanges(sql: string): DestructiveChange[] {
  const out: DestructiveChange[] = [];
  for (const statement of splitTopLevel(stripSql(sql), ";")) {
    if (/^DROP\s+TABLE\b/i.test(statement)) {
      out.push({ kind: "drop_table", statement });
    } else if (/^DROP\s+TYPE\b/i.test(statement)) {
      out.push({ kind: "drop_type", statement });
    } else if (/^ALTER\s+TABLE\b/i.test(statement)) {
      const parsed = alterTableActions(statement);
      for (const action of parsed?.actions ?? []) {
        const kind = classifyAction(action);
        if (kind !== undefined) out.push({ kind, statement: `ALTER TABLE ${parsed?.table ?? ""} ${action}` });
      }
    }
  }
  return out;
}

/** The note of a migration's contract-step marker, if it has one. */
export function contractNote(sql: string): string | undefined {
  return CONTRACT_MARKER.exec(sql)?.[1]?.trim();
}

/**
 * Migrations with destructive changes that neither carry a contract-step marker with a note nor
 * are grandfathered by name: each would break the previous release during a rolling update.
 */
export function unsafeMigrations(
  migrations: ReadonlyArray<{ readonly name: string; readonly sql: string }>,
  grandfathered: ReadonlyMap<string, string> = GRANDFATHERED_MIGRATIONS,
): MigrationSafetyFinding[] {
  const findings: MigrationSafetyFinding[] = [];
  for (const m of migrations) {
    if (grandfathered.has(m.name) || contractNote(m.sql) !== undefined) continue;
    const changes = destructiveChanges(m.sql);
    if (changes.length > 0) findings.push({ migration: m.name, changes });
  }
  return findings;
}

/** One line per problem, for a terminal or a test failure. */
export function describeFindings(findings: readonly MigrationSafetyFinding[]): string {
  return findings
    .flatMap((f) => f.changes.map((c) => `${f.migration}: ${c.kind}: ${c.statement}`))
    .join("\n");
}
