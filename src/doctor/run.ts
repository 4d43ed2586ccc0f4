// The doctor as a function: configuration in, report and exit code out (the CLI only prints).
import type { DoctorConfig } from "../config/doctor.ts";
import { runProbes } from "./probes.ts";
import { buildReport, renderJson, renderTable } from "./report.ts";
import type { DoctorReport } from "./report.ts";

export interface DoctorOutcome {
  readonly report: DoctorReport;
  readonly text: string;
  /** 0: nothing the bot relies on is missing or changed; 1: drift (or the marketplace unreachable). */
  readonly exitCode: 0 | 1;
}

export async function runDoctor(config: DoctorConfig): Promise<DoctorOutcome> {
  const results = await runProbes({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    secondApiKey: config.secondApiKey,
    item: config.item,
    timeoutMs: config.timeoutMs,
  });
  const report = buildReport(config.baseUrl, results);
  const text = config.json ? renderJson(report) : renderTable(report);
  // Belt and braces: whatever an answer echoed, the keys never reach the output.
  let safe = text;
  for (const key of [config.apiKey, config.secondApiKey]) {
    if (key !== undefined) safe = safe.split(key).join("[redacted]");
  }
  return { report, text: safe, exitCode: report.ok ? 0 : 1 };
}
