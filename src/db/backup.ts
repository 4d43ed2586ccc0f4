// Backups with Postgres's own tools: pg_dump's custom format, restored with pg_restore into an
// empty database. The dump holds the stored marketplace keys sealed, never the key that opens them.
import { execFile } from "node:child_process";
import { chmod } from "node:fs/promises";
import pg from "pg";
import { childEnvironment } from "../config/childEnv.ts";

export class BackupError extends Error {
  override readonly name = "BackupError";
}

/** A connection URL without its password, and the password for libpq's environment: never on a command line (ps shows it). */
function libpqTarget(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return {
    dbname: parsed.toString(),
    env: childEnvironment(password === "" ? {} : { PGPASSWORD: password }),
  };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err === null) return resolve(stdout);
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(
        new BackupError(
          missing
            ? `${cmd} is not installed: install the Postgres client tools (Debian: postgresql-client) of the server's major version`
            : `${cmd} failed: ${stderr.trim().split("\n").slice(-3).join(" ")}`,
        ),
      );
    });
  });
}

async function majorOfTool(cmd: string): Promise<number> {
  const out = await run(cmd, ["--version"], childEnvironment());
  const major = /(\d+)(?:\.\d+)?/.exec(out)?.[1];
  if (major === undefined) throw new BackupError(`cannot read the version of ${cmd}: ${out.trim()}`);
  return Number(major);
}

async function majorOfServer(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: "backup" });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version_num: string }>("SHOW server_version_num");
    return Math.floor(Number(rows[0]?.server_version_num ?? 0) / 10_000);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * pg_dump cannot dump a server newer than itself: say which one to use before it fails half-way.
 */
export async function assertToolFits(cmd: "pg_dump" | "pg_restore", url: string): Promise<void> {
  const [tool, server] = await Promise.all([majorOfTool(cmd), majorOfServer(url)]);
  if (tool < server) {
    throw new BackupError(
      `${cmd} ${tool} cannot handle Postgres ${server}: use the server's own (for Compose: docker compose exec db ${cmd} ...) or install postgresql-client-${server}`,
    );
  }
}

/** Dumps the database at `url` to `file` (custom format: compressed, restorable table by table). */
export async function dumpDatabase(url: string, file: string): Promise<void> {
  await assertToolFits("pg_dump", url);
  const { dbname, env } = libpqTarget(url);
  await run(
    "pg_dump",
    ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${dbname}`],
    env,
  );
  // Users' data and their sealed keys: readable by the operator only.
  await chmod(file, 0o600);
}

/** Restores `file` into the empty database at `url`, in one transaction: all of it or nothing. */
export async function restoreDatabase(file: string, url: string): Promise<void> {
  await assertToolFits("pg_restore", url);
  const { dbname, env } = libpqTarget(url);
  await run(
    "pg_restore",
    ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", `--dbname=${dbname}`, file],
    env,
  );
}
