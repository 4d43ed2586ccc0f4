// The doctor's report: a table for people (endpoints, drift, verdicts) or JSON for machines. Field
// names and anonymised shapes only: no key, no value, no personal data.
import type { DriftFinding } from "../market/contract/inspect.ts";
import type { ProbeResult } from "./probes.ts";
import { isSerious, judgeFeatures } from "./verdicts.ts";
import type { FeatureVerdict } from "./verdicts.ts";

export interface DoctorReport {
  /** The marketplace's origin and path (no credentials). */
  readonly marketplace: string;
  /** True when nothing the bot relies on is missing or changed (exit 0). */
  readonly ok: boolean;
  readonly endpoints: readonly ProbeResult[];
  /** Every serious drift, endpoint by endpoint. */
  readonly drift: readonly (DriftFinding & { readonly endpoint: string; readonly key: string })[];
  /** Single elements the bot would leave out of a list (it reads around them): listed, not an error. */
  readonly unreadableElements: readonly { readonly endpoint: string; readonly field: string }[];
  /** Fields the bot does not know: listed, not an error. */
  readonly unknownFields: readonly {
    readonly endpoint: string;
    readonly field: string;
    readonly seen?: string;
  }[];
  readonly verdicts: readonly FeatureVerdict[];
}

export function buildReport(baseUrl: string, results: readonly ProbeResult[]): DoctorReport {
  const url = new URL(baseUrl);
  // GET /listings is read twice (all types, then auctions): one row per endpoint, key, field and kind.
  const rows = new Map<string, DriftFinding & { endpoint: string; key: string }>();
  for (const r of results) {
    for (const f of r.findings.filter(isSerious)) {
      const id = `${r.endpoint} ${r.key} ${f.field} ${f.kind}`;
      if (!rows.has(id)) rows.set(id, { ...f, endpoint: r.endpoint, key: r.key });
    }
  }
  const drift = [...rows.values()];
  const unknown = new Map<string, { endpoint: string; field: string; seen?: string }>();
  for (const r of results) {
    for (const f of r.findings) {
      if (f.kind !== "unknown") continue;
      const entry = {
        endpoint: r.endpoint,
        field: f.field,
        ...(f.seen === undefined ? {} : { seen: f.seen }),
      };
      unknown.set(`${r.endpoint} ${f.field}`, entry);
    }
  }
  const unreachable = results.some((r) => r.status === "timeout" || r.status === "network");
  return {
    marketplace: `${url.origin}${url.pathname}`,
    ok: drift.length === 0 && !unreachable,
    endpoints: results,
    drift,
    unreadableElements: dedupe(
      results.flatMap((r) =>
        r.findings
          .filter((f) => f.kind === "unreadable" && !isSerious(f))
          .map((f) => ({ endpoint: r.endpoint, field: f.field })),
      ),
    ),
    unknownFields: [...unknown.values()],
    verdicts: judgeFeatures(results),
  };
}

export function renderJson(report: DoctorReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function renderTable(report: DoctorReport): string {
  const lines: string[] = [];
  lines.push(`Marketplace contract doctor: ${report.marketplace}`, "");
  lines.push(
    ...table(
      ["ENDPOINT", "KEY", "STATUS", "MS", "RATE LIMIT (limit/remaining, reset)", "CONTRACT"],
      report.endpoints.map((r) => [
        r.endpoint,
        r.key,
        String(r.status),
        r.latencyMs === undefined ? "-" : String(r.latencyMs),
        rateText(r),
        contractText(r),
      ]),
    ),
  );
  lines.push("");
  if (report.drift.length === 0) {
    lines.push("Drift: none. Every field the bot reads is there, with the type it expects.");
  } else {
    lines.push("Drift (what the bot relies on that is missing or changed):");
    lines.push(
      ...table(
        ["ENDPOINT", "FIELD", "KIND", "EXPECTED", "SEEN INSTEAD"],
        report.drift.map((d) => [
          d.key === "main" ? d.endpoint : `${d.endpoint} (${d.key} key)`,
          d.field,
          d.money === undefined ? d.kind : `${d.kind} (money: ${d.money.join(", ")})`,
          d.expected ?? "",
          d.seen ?? "",
        ]),
      ).map((l) => `  ${l}`),
    );
  }
  lines.push("");
  if (report.unreadableElements.length > 0) {
    lines.push("Unreadable elements (left out of their list, as the bot does; listed, not an error):");
    for (const u of report.unreadableElements) lines.push(`  ${u.endpoint}  ${u.field}`);
    lines.push("");
  }
  if (report.unknownFields.length > 0) {
    lines.push("Unknown fields (new to the bot; listed, not an error):");
    for (const u of report.unknownFields)
      lines.push(`  ${u.endpoint}  ${u.field}  ${u.seen ?? ""}`.trimEnd());
    lines.push("");
  }
  lines.push("Verdicts:");
  lines.push(
    ...table(
      ["", "", "VERDICT", "WHY"],
      report.verdicts.map((v) => [v.kind, v.name, v.verdict, v.because.join("; ")]),
    ).map((l) => `  ${l}`),
  );
  lines.push("");
  const unreachable = report.endpoints.some((r) => r.status === "timeout" || r.status === "network");
  lines.push(
    report.ok
      ? "Result: OK. Nothing the bot relies on is missing or changed (exit 0)."
      : unreachable
        ? "Result: UNREACHABLE. The marketplace did not answer some reads: check MARKET_BASE_URL and the network (exit 1)."
        : "Result: DRIFT. Something the bot relies on is missing or changed: see above (exit 1).",
  );
  return `${lines.join("\n")}\n`;
}

function rateText(r: ProbeResult): string {
  const rl = r.rateLimit;
  if (rl === undefined || (rl.limit === undefined && rl.reset === undefined)) return "-";
  const budget = `${rl.limit ?? "?"}/${rl.remaining ?? "?"}`;
  const reset = rl.resetUnit === undefined ? "no reset" : `reset in ${rl.resetUnit}`;
  const retry = rl.retryAfter === undefined ? "" : `, retry after ${rl.retryAfter} s`;
  return `${budget}, ${reset}${retry}`;
}

function contractText(r: ProbeResult): string {
  if (r.status === "skipped") return `skipped: ${r.note ?? ""}`;
  const serious = r.findings.filter(isSerious).length;
  const unknown = r.findings.filter((f) => f.kind === "unknown").length;
  const unreadable = r.findings.length - serious - unknown;
  const parts = [serious === 0 ? "ok" : `${serious} drift`];
  if (unreadable > 0) parts.push(`${unreadable} unreadable element kind(s)`);
  if (unknown > 0) parts.push(`${unknown} unknown`);
  if (r.note !== undefined) parts.push(r.note);
  return parts.join(", ");
}

function dedupe<T extends { endpoint: string; field: string }>(rows: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const row of rows)
    if (!seen.has(`${row.endpoint} ${row.field}`)) seen.set(`${row.endpoint} ${row.field}`, row);
  return [...seen.values()];
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
