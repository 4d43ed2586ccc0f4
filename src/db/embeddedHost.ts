// The host side of the embedded server: the system user it runs as when we are root, the folders
// that user must enter, a server already running on the data folder, free ports, child processes.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, stat, unlink } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Logger } from "../log.ts";
import { EmbeddedDatabaseError } from "./errors.ts";

/** The role and, as root, the system user the embedded server runs as. */
export const USER = "postgres";

export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * Postgres refuses to run as root: as root, run it as user `postgres` (created if missing).
 * Returns undefined when we are not root.
 */
export async function prepareUser(log: Logger): Promise<RunAs | undefined> {
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
export async function ensureTraversable(target: string, who: RunAs, log: Logger): Promise<void> {
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

export interface RunningServer {
  pid: number;
  port: number;
}

/**
 * Reads postmaster.pid: a live postmaster on this data folder is reused (waiting while it
 * starts up); a stale file (its process gone, or the pid now someone else's) is removed.
 */
export async function inspectRunningServer(dataDir: string, log: Logger): Promise<RunningServer | undefined> {
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

export function isAlive(pid: number): boolean {
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

export function run(cmd: string, args: string[], runAs?: RunAs): Promise<string> {
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

export function errorOutput(err: unknown): string | undefined {
  const e = err as { stderr?: unknown; stdout?: unknown };
  const text = [e.stderr, e.stdout]
    .filter((v): v is string => typeof v === "string" && v.length > 0)
    .join("\n");
  return text.length > 0 ? text.split("\n").slice(-15).join("\n").trim() : undefined;
}
