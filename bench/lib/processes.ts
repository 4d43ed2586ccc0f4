// Child processes for the memory and start scenarios: the bot (or a bench entry) under its own Node,
// with only the environment we give it and the node flags production gives it, its JSON log lines
// timestamped as they arrive.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAIN_TS = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
/** tsx's loader, for `node --import <it> file.ts` in one process. */
export const TSX_LOADER = import.meta.resolve("tsx");

export interface TimedLine {
  /** ms since the process was spawned. */
  readonly t: number;
  readonly msg: string;
  readonly level: number;
  readonly raw: Record<string, unknown>;
}

export interface ChildRun {
  readonly child: ChildProcess;
  readonly spawnedAt: number;
  readonly lines: TimedLine[];
  output(): string;
  waitFor(predicate: (line: TimedLine) => boolean, timeoutMs: number, what: string): Promise<TimedLine>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; t: number }>;
  /** SIGTERM to the process (tsx relays it), then SIGKILL to the group after `graceMs`. Resolves with the exit. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; t: number }>;
}

export function spawnChild(args: readonly string[], env: Record<string, string>, cwd: string): ChildRun {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // A group of its own: the tsx CLI and the node process it starts stop together.
    detached: true,
  });
  const lines: TimedLine[] = [];
  const listeners = new Set<() => void>();
  let text = "";
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    const t = performance.now() - spawnedAt;
    text += chunk;
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const part of parts) {
      if (!part.startsWith("{")) continue;
      try {
        const raw = JSON.parse(part) as Record<string, unknown>;
        lines.push({ t, msg: String(raw.msg ?? ""), level: Number(raw.level ?? 30), raw });
      } catch {
        // a partial or non-JSON line
      }
    }
    for (const l of [...listeners]) l();
  });
  child.stderr.on("data", (chunk: string) => (text += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; t: number }>((resolve) =>
    child.on("exit", (code, signal) => {
      for (const l of [...listeners]) l();
      resolve({ code, signal, t: performance.now() - spawnedAt });
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  const run: ChildRun = {
    child,
    spawnedAt,
    lines,
    output: () => text,
    waitFor(predicate, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(predicate);
          if (found) {
            finish();
            resolve(found);
          } else if (done) {
            finish();
            reject(new Error(`the process exited before ${what}:\n${text.slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${text.slice(-3000)}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    exited,
    async stop(graceMs = 30_000) {
      // Only the top process: a second signal (the group's) would force the bot's exit mid-shutdown.
      if (!done) child.kill("SIGTERM");
      const timer = setTimeout(() => {
        if (!done && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      }, graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  return run;
}

/**
 * node's flags as production passes them, so the bench measures what runs: before the entry file in
 * the Dockerfile's exec-form CMD (compiled), before `--import tsx` in `npm start` (tsx).
 */
export async function productionNodeFlags(runner: "compiled" | "tsx"): Promise<string[]> {
  let words: string[];
  if (runner === "compiled") {
    const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(await readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8"))?.[1];
    if (cmd === undefined) throw new Error("the Dockerfile has no exec-form CMD");
    words = JSON.parse(cmd) as string[];
  } else {
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    words = (pkg.scripts?.start ?? "").trim().split(/\s+/);
  }
  if (words[0] !== "node")
    throw new Error(`the ${runner} command does not start with node: ${words.join(" ")}`);
  const end = words.findIndex((w, i) => i > 0 && (w === "--import" || !w.startsWith("-")));
  return words.slice(1, end < 0 ? words.length : end);
}
