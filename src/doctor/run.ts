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
  const safe = redactKeys(text, [config.apiKey, config.secondApiKey]);
  return { report, text: safe, exitCode: report.ok ? 0 : 1 };
}

/** Below this length a key is a word of the report too ("e", "key"): redacted only where it stands alone. */
const SHORT_KEY = 12;

/**
 * Every occurrence of each key replaced by "[redacted]". A short key is replaced only where no
 * letter, digit, "-" or "_" touches it, so that a one-letter key cannot turn "expects" into
 * "e[redacted]pects"; a real key (long, random) is replaced wherever it appears.
 */
export function redactKeys(text: string, keys: readonly (string | undefined)[]): string {
  let safe = text;
  // Longest first: a key inside another key is redacted with it.
  const sorted = [...new Set(keys.filter((k): k is string => k !== undefined && k !== ""))].sort(
    (a, b) => b.length - a.length,
  );
  for (const key of sorted) {
    if (key.length >= SHORT_KEY) {
      safe = safe.split(key).join("[redacted]");
    } else {
      const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      safe = safe.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, "g"), "[redacted]");
    }
  }
  return safe;
}
