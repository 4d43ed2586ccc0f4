// Operations test helpers: HTTP probes, a Prometheus text parser, condition polling and the bot as a child process.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAIN_TS = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(
  fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url)),
).href;

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

export async function get(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await res.text() };
}

export interface HealthBody {
  readonly status: string;
  readonly checks: Record<string, { ok: boolean; detail?: string; [k: string]: unknown }>;
}

export async function health(baseUrl: string): Promise<{ status: number; body: HealthBody }> {
  const answer = await get(`${baseUrl}/healthz`);
  return { status: answer.status, body: JSON.parse(answer.text) as HealthBody };
}

/** Probes /healthz until it answers `status` (10 s at most); resolves with that answer. */
export function healthTurns(
  baseUrl: string,
  status: number,
  what: string,
): Promise<{ status: number; body: HealthBody }> {
  return eventually(
    async () => {
      const h = await health(baseUrl);
      return h.status === status ? h : undefined;
    },
    10_000,
    what,
  );
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = l[2] as string;
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`; undefined when absent. */
export function valueOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

export async function scrape(baseUrl: string): Promise<Sample[]> {
  const answer = await get(`${baseUrl}/metrics`);
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`);
  return parseMetrics(answer.text);
}

/** Re-checks `probe` until it returns a value (not undefined/false), failing after the deadline. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  deadlineMs: number,
  what: string,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) {
      throw new Error(
        `timed out after ${deadlineMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ProcessLogLine {
  readonly level: number;
  readonly msg: string;
  readonly module?: string;
  readonly [key: string]: unknown;
}

export interface BotProcess {
  readonly child: ChildProcess;
  /** JSON log lines printed so far. */
  readonly logs: ProcessLogLine[];
  /** Everything printed, for failure messages. */
  output(): string;
  waitForLog(
    predicate: (line: ProcessLogLine) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<ProcessLogLine>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the whole process group when still running (test cleanup). */
  kill(): Promise<void>;
}

/**
 * src/main.ts under tsx's loader, with only the given environment plus PATH and HOME, in `cwd` (a
 * temporary folder, so a developer's .env in the repository cannot leak in). `node --import tsx`
 * rather than the tsx CLI: signals then reach the bot itself, as they reach `node dist/src/main.js`
 * in the image, instead of going through the CLI's relay (which SIGKILLs a child that does not
 * acknowledge within 30 ms, something a loaded CI machine does not always manage).
 */
export function spawnBot(env: Record<string, string>, cwd: string): BotProcess {
  return spawnNode(["--import", TSX_LOADER, MAIN_TS], env, cwd);
}

/** `node <args>` with only the given environment plus PATH and HOME; stdout's JSON lines are parsed as logs. */
export function spawnNode(args: readonly string[], env: Record<string, string>, cwd: string): BotProcess {
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own: cleanup can kill tsx and the node process it runs together.
    detached: true,
  });
  const logs: ProcessLogLine[] = [];
  const waiters = new Set<() => void>();
  let text = "";
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    text += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      try {
        logs.push(JSON.parse(line) as ProcessLogLine);
      } catch {
        // A partial or foreign line: kept in output() only.
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr.on("data", (chunk: string) => {
    text += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });
  return {
    child,
    logs,
    output: () => text,
    exited,
    waitForLog(predicate, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.find(predicate);
          if (found) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `the bot exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${text.slice(-4000)}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${text.slice(-4000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (child.pid === undefined) return;
      try {
        // The group, even after tsx exited: the node process it ran may have outlived it.
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the whole group is already gone.
      }
      await exited;
    },
  };
}
