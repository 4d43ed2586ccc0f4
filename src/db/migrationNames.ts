// Migration names: the renames recorded in prisma/migrations/renames.json and the timestamp rule
// that keeps names sorting in the order they were written.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { MigrationError } from "./errors.ts";

export const RENAMES_FILE = "renames.json";

const MigrationName = z
  .string()
  .regex(/^\d{14}_[a-z0-9_]+$/, "a migration name: <14-digit UTC stamp>_<snake_case>");

const RenamesFile = z.object({
  renames: z.array(
    z.object({
      from: MigrationName,
      to: MigrationName,
      why: z.string().min(1),
    }),
  ),
});

export type MigrationRename = z.infer<typeof RenamesFile>["renames"][number];

/**
 * The renames of a migrations folder (none when it has no renames.json). Each `to` must be a
 * folder there and no `from` may be one, else an applied migration could be applied twice.
 */
export async function readRenames(dir: string, localNames: readonly string[]): Promise<MigrationRename[]> {
  const file = path.join(dir, RENAMES_FILE);
  if (!existsSync(file)) return [];
  let parsed;
  try {
    parsed = RenamesFile.parse(JSON.parse(await readFile(file, "utf8")));
  } catch (err) {
    throw new MigrationError("invalid_migrations", `${RENAMES_FILE} is not a valid list of renames`, [], {
      cause: err,
    });
  }
  const local = new Set(localNames);
  const seen = new Set<string>();
  for (const r of parsed.renames) {
    if (!local.has(r.to))
      throw new MigrationError("invalid_migrations", `${RENAMES_FILE}: ${r.to} is not a migration folder`, [
        r.to,
      ]);
    if (local.has(r.from))
      throw new MigrationError(
        "invalid_migrations",
        `${RENAMES_FILE}: ${r.from} still exists beside its new name ${r.to}`,
        [r.from],
      );
    if (seen.has(r.from) || seen.has(r.to))
      throw new MigrationError(
        "invalid_migrations",
        `${RENAMES_FILE}: ${r.from} or ${r.to} is renamed twice`,
        [r.from],
      );
    seen.add(r.from).add(r.to);
  }
  return parsed.renames;
}

/** The UTC stamp a migration written at `at` is named with: YYYYMMDDHHMMSS. */
export function migrationStamp(at: Date): string {
  return at.toISOString().replace(/\D/g, "").slice(0, 14);
}

/**
 * Why a new migration named `name` may not be written, or undefined when it may: its name must
 * sort after every existing one, or it would apply in a different order on fresh and existing
 * databases.
 */
export function newMigrationNameProblem(name: string, existing: readonly string[]): string | undefined {
  const newest = [...existing].sort().at(-1);
  if (newest !== undefined && name <= newest) {
    return (
      `${name} would sort before or at the newest migration ${newest}: a clock behind the ` +
      "migrations' stamps (fix the clock) or a migration named ahead of the calendar (rename it, " +
      `recording the rename in prisma/migrations/${RENAMES_FILE})`
    );
  }
  return undefined;
}
