// Counts from the reliability suites, written to bench/reliability.md by the run itself.
//
// How it stays right with parallel workers and no global teardown: every test file keeps a tally
// and, in its afterAll, writes its own section file bench/reliability/<section>.json (atomic
// rename), then re-renders bench/reliability.md from ALL section files present, under a lock
// folder so two workers never interleave. The last file to finish therefore writes a complete
// report, whatever order the files ran in; a section not run in this run keeps the counts and the
// date of its last run. Other suites (the fault and crash items) use the same `reliabilityTally`.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { afterAll, beforeEach } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SECTIONS_DIR = path.join(ROOT, "bench", "reliability");
export const REPORT_FILE = path.join(ROOT, "bench", "reliability.md");
const LOCK_DIR = path.join(SECTIONS_DIR, ".lock");
/** A lock older than this was left by a killed worker. */
const STALE_LOCK_MS = 30_000;
const LOCK_DEADLINE_MS = 20_000;

/** One suite's counts as stored in bench/reliability/<name>.json. */
export interface Section {
  readonly name: string;
  readonly title: string;
  /** The test file that produced it, relative to the repository. */
  readonly file: string;
  readonly finishedAt: string;
  readonly tests: { readonly passed: number; readonly failed: number };
  /** Label -> count, in insertion order. */
  readonly counts: Readonly<Record<string, number>>;
  readonly notes: readonly string[];
}

/** The items: 1–4 faults and crashes, 5–8 money, bad input, secrets, authorization. */
const ITEMS = [1, 2, 3, 4, 5, 6, 7, 8];

/** "Marketplace faults (item 1)" -> 1; "(items 1–4)" -> 1; no item -> after the others. */
function itemOf(title: string): number {
  const m = /\(items? (\d+)/.exec(title);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

export interface Tally {
  /** Adds `n` (default 1) to a count; counts appear in the order first touched. */
  add(label: string, n?: number): void;
  /** Sets a count outright (for maxima and totals computed at the end). */
  set(label: string, n: number): void;
  get(label: string): number;
  note(text: string): void;
}

/**
 * Declares this file's section: counts are written after the file's tests, whatever their
 * outcome (the passed/failed test counts say how far to trust them).
 */
export function reliabilityTally(name: string, title: string, file: string): Tally {
  const counts = new Map<string, number>();
  const notes: string[] = [];
  let passed = 0;
  let failed = 0;
  beforeEach(({ onTestFinished }) => {
    onTestFinished(({ task }) => {
      if (task.result?.state === "fail") failed += 1;
      else passed += 1;
    });
  });
  afterAll(async () => {
    await writeSection({
      name,
      title,
      file: path.relative(ROOT, fileURLToPath(file)),
      finishedAt: new Date().toISOString(),
      tests: { passed, failed },
      counts: Object.fromEntries(counts),
      notes,
    });
  });
  return {
    add(label, n = 1) {
      counts.set(label, (counts.get(label) ?? 0) + n);
    },
    set(label, n) {
      counts.set(label, n);
    },
    get: (label) => counts.get(label) ?? 0,
    note(text) {
      notes.push(text);
    },
  };
}

export async function writeSection(section: Section): Promise<void> {
  if (!/^[a-z0-9-]+$/.test(section.name)) throw new Error(`bad section name ${section.name}`);
  await mkdir(SECTIONS_DIR, { recursive: true });
  const target = path.join(SECTIONS_DIR, `${section.name}.json`);
  const tmp = `${target}.${process.pid}.tmp`;
  // Formatted as the repository's `prettier --check` expects: the section files are committed.
  const text = await format(JSON.stringify(section), { ...(await resolveConfig(target)), filepath: target });
  await writeFile(tmp, text);
  await rename(tmp, target);
  await withLock(async () => {
    const md = renderReport(await readSections());
    const mdTmp = `${REPORT_FILE}.${process.pid}.tmp`;
    await writeFile(mdTmp, md);
    await rename(mdTmp, REPORT_FILE);
  });
}

export async function readSections(): Promise<Section[]> {
  const names = (await readdir(SECTIONS_DIR)).filter((n) => n.endsWith(".json"));
  const sections: Section[] = [];
  for (const n of names) {
    try {
      sections.push(JSON.parse(await readFile(path.join(SECTIONS_DIR, n), "utf8")) as Section);
    } catch {
      // A half-written file cannot happen (rename); a hand-edited broken one is skipped.
    }
  }
  return sections.sort((a, b) => itemOf(a.title) - itemOf(b.title) || a.name.localeCompare(b.name));
}

export function renderReport(sections: readonly Section[]): string {
  const lines = [
    "<!-- generated by npm test (test/reliability/report.ts), do not edit -->",
    "",
    "# Reliability and security: counts from the test run",
    "",
    "Generated by `npm test`; do not edit. Each suite under `test/reliability/` writes its counts to",
    "`bench/reliability/<section>.json` when it finishes and re-renders this file from every section",
    "present, so a partial run keeps the other sections' last counts (see each section's date).",
    "Every count is of checks that ran; a section's failed-test count says whether they all held.",
    "",
  ];
  lines.push(...summary(sections));
  for (const s of sections) {
    lines.push(`## ${s.title}`, "");
    lines.push(
      `\`${s.file}\` · finished ${s.finishedAt} · tests passed ${s.tests.passed}, failed ${s.tests.failed}`,
      "",
    );
    lines.push("| count | value |", "| --- | ---: |");
    for (const [label, value] of Object.entries(s.counts)) lines.push(`| ${label} | ${value} |`);
    lines.push("");
    for (const note of s.notes) lines.push(`- ${note}`);
    if (s.notes.length > 0) lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The headline: alerts lost and duplicated across the fault suites, and which items ran. */
function summary(sections: readonly Section[]): string[] {
  const withAlerts = sections.filter((s) => "alerts lost" in s.counts || "duplicates" in s.counts);
  const sum = (label: string) => withAlerts.reduce((n, s) => n + (s.counts[label] ?? 0), 0);
  const failed = sections.reduce((n, s) => n + s.tests.failed, 0);
  const present = new Set(sections.map((s) => itemOf(s.title)));
  const missing = ITEMS.filter((i) => !present.has(i));
  return [
    "## Summary",
    "",
    "| | |",
    "| --- | ---: |",
    withAlerts.length === 0
      ? "| alerts lost, duplicates (fault suites) | not run yet |"
      : `| alerts lost (${withAlerts.length} fault suites) | ${sum("alerts lost")} |\n| duplicates (${withAlerts.length} fault suites) | ${sum("duplicates")} |`,
    `| failed tests, all sections | ${failed} |`,
    `| items without a section yet | ${missing.length === 0 ? "none" : missing.join(", ")} |`,
    "",
  ];
}

async function withLock(fn: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + LOCK_DEADLINE_MS;
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(LOCK_DIR).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(LOCK_DIR, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`could not lock ${LOCK_DIR} within ${LOCK_DEADLINE_MS} ms`);
      else await new Promise<void>((resolve) => setTimeout(resolve, 25 + Math.random() * 50));
    }
  }
  try {
    await fn();
  } finally {
    await rm(LOCK_DIR, { recursive: true, force: true });
  }
}
