// Turns scenario results into the target / measured / met table, results.json and the README sections.
import { readFile, writeFile } from "node:fs/promises";
import type { AckResult } from "../ack.ts";
import type { EconomyResult } from "../economy.ts";
import type { FanOutResult } from "../fanout.ts";
import type { LatencyResult } from "../latency.ts";
import type { MatchingBenchRow } from "../matching.ts";
import type { MemoryResult } from "../memory.ts";
import type { ScaleResult } from "../scale.ts";
import type { MillionResult } from "../million.ts";
import type { SnipeResult } from "../snipe.ts";
import type { StartResult } from "../startup.ts";
import type { ThroughputResult } from "../throughput.ts";
import type { MachineSetup } from "./common.ts";

export interface ScenarioRecord<T> {
  /** When the scenario ran (ISO) and on what. */
  at: string;
  machine: MachineSetup;
  database: string;
  wallMs: number;
  result: T;
}

export interface Scenarios {
  latency?: ScenarioRecord<LatencyResult[]>;
  matching?: ScenarioRecord<MatchingBenchRow[]>;
  economy?: ScenarioRecord<EconomyResult>;
  ack?: ScenarioRecord<AckResult>;
  memory?: ScenarioRecord<MemoryResult>;
  start?: ScenarioRecord<StartResult>;
  throughput?: ScenarioRecord<ThroughputResult>;
  snipe?: ScenarioRecord<SnipeResult>;
  scale?: ScenarioRecord<ScaleResult>;
  fanOut?: ScenarioRecord<FanOutResult>;
  million?: ScenarioRecord<MillionResult>;
}

export interface TableRow {
  measure: string;
  setup: string;
  target: string;
  measured: string;
  /** null: informative, no target. */
  met: boolean | null;
}

export interface ResultsFile {
  generatedAt: string;
  mode: "full" | "quick";
  /** `--only`: the scenarios this run measured; the others are kept from earlier runs. */
  rerun?: string[];
  scenarios: Scenarios;
  table: TableRow[];
}

const metText = (m: boolean | null) => (m === null ? "—" : m ? "yes" : "**no**");
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

export function markdownTable(rows: readonly TableRow[]): string {
  const lines = ["| measure | setup | target | measured | met? |", "|---|---|---|---|---|"];
  for (const r of rows) {
    lines.push(
      `| ${cell(r.measure)} | ${cell(r.setup)} | ${cell(r.target)} | ${cell(r.measured)} | ${metText(r.met)} |`,
    );
  }
  return lines.join("\n");
}

/** The short table of the top-level README: measure, target, measured, met. */
export function summaryTable(rows: readonly TableRow[]): string {
  const lines = ["| measure | target | measured | met? |", "|---|---|---|---|"];
  for (const r of rows) {
    if (r.met === null) continue;
    lines.push(`| ${cell(r.measure)} | ${cell(r.target)} | ${cell(r.measured)} | ${metText(r.met)} |`);
  }
  return lines.join("\n");
}

/** Replaces the text between two marker lines; false (file untouched) when the markers are missing. */
export async function replaceSection(file: string, name: string, body: string): Promise<boolean> {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return false;
  }
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) return false;
  await writeFile(file, `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`);
  return true;
}
