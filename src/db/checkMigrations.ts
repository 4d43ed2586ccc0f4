// `npm run db:check-migrations`: fails when a migration would break the previous release during a
// rolling update (a drop, rename, type change or new NOT NULL without default) unless it is marked
// as a contract step with a note.
import { defaultMigrationsDir, readMigrations } from "./migrate.ts";
import { describeFindings, unsafeMigrations } from "./migrationSafety.ts";

async function main(): Promise<number> {
  const migrations = await readMigrations(process.argv[2] ?? defaultMigrationsDir());
  const findings = unsafeMigrations(migrations);
  if (findings.length === 0) {
    process.stdout.write(`${migrations.length} migrations: none breaks the previous release\n`);
    return 0;
  }
  process.stderr.write(
    `${describeFindings(findings)}\n\n` +
      "These break the release still running during a rolling update. Expand instead (add, copy, " +
      "keep the old), and contract in a later release with a line `-- contract-step: <note>` in " +
      'its migration.sql (docs/operations.md, "Upgrades").\n',
  );
  return 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
