// A real Prometheus (Debian's /usr/bin/prometheus) on a loopback port for the alerting tests, and
// the alert rules of monitoring/prometheus read as data.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { REPO_ROOT } from "./support.ts";

export const PROMETHEUS_BIN = "/usr/bin/prometheus";
export const PROMTOOL_BIN = "/usr/bin/promtool";
export const RULES_DIR = path.join(REPO_ROOT, "monitoring", "prometheus");

const AlertRule = z
  .object({
    alert: z.string().regex(/^[A-Z][A-Za-z]+$/),
    expr: z.string().min(1),
    for: z
      .string()
      .regex(/^\d+[smh]$/)
      .optional(),
    labels: z.object({ severity: z.enum(["page", "ticket"]) }).strict(),
    annotations: z.object({ summary: z.string().min(10), runbook: z.string().min(1) }).strict(),
  })
  .strict();
export type AlertRule = z.infer<typeof AlertRule>;
const RulesFile = z.object({
  groups: z.array(z.object({ name: z.string().min(1), rules: z.array(AlertRule).min(1) }).strict()).min(1),
});

/**
 * The metric names a PromQL expression selects: identifiers outside strings, label sets, groupings
 * and ranges that are neither functions nor operators.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, "")
    .replace(/\[[^\]]*\]/g, "");
  const operators = new Set(["and", "or", "unless", "bool"]);
  return [...bare.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1] ?? "")
    .filter((n) => !operators.has(n))
    .map((n) => n.replace(/_bucket$/, ""));
}

/** Every PromQL expression of the Grafana dashboard (test/ops/dashboard.test.ts checks its shape). */
export function dashboardExpressions(): string[] {
  const file = path.join(REPO_ROOT, "monitoring", "grafana", "dashboards", "market-alerts-bot.json");
  const Dashboard = z.object({
    panels: z.array(z.object({ targets: z.array(z.object({ expr: z.string() })).optional() })),
  });
  return Dashboard.parse(JSON.parse(readFileSync(file, "utf8"))).panels.flatMap((p) =>
    (p.targets ?? []).map((t) => t.expr),
  );
}

export function readAlertRules(): AlertRule[] {
  const parsed = RulesFile.parse(parseYaml(readFileSync(path.join(RULES_DIR, "alerts.yml"), "utf8")));
  return parsed.groups.flatMap((g) => g.rules);
}

export function missingBinaryNotice(bin: string): boolean {
  if (existsSync(bin)) return false;
  process.stdout.write(
    `notice: ${bin} is absent (Debian's prometheus package; .ci/run installs it): its tests are skipped\n`,
  );
  return true;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export interface RunningPrometheus {
  readonly url: string;
  /** Alerts as Prometheus's API reports them: name, state (pending | firing), labels. */
  alerts(): Promise<Array<{ name: string; state: string; labels: Record<string, string> }>>;
  /** The value of an instant query's first sample; undefined when it has none. */
  query(expr: string): Promise<number | undefined>;
  output(): string;
  stop(): Promise<void>;
}

const QueryAnswer = z.object({
  status: z.literal("success"),
  data: z.object({ result: z.array(z.object({ value: z.tuple([z.number(), z.string()]) })) }),
});

const AlertsAnswer = z.object({
  status: z.literal("success"),
  data: z.object({
    alerts: z.array(z.object({ labels: z.record(z.string(), z.string()), state: z.string() })),
  }),
});

/**
 * Prometheus scraping `target` (host:port) as the bot's job every second and evaluating `rules`
 * every second, its data in a temporary folder removed on stop.
 */
export async function startPrometheus(target: string, rules: AlertRule[]): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), "prometheus-"));
  await writeFile(path.join(dir, "alerts.yml"), stringifyYaml({ groups: [{ name: "test", rules }] }));
  await writeFile(
    path.join(dir, "prometheus.yml"),
    stringifyYaml({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: ["alerts.yml"],
      scrape_configs: [{ job_name: "market-alerts-bot", static_configs: [{ targets: [target] }] }],
    }),
  );
  const port = await freePort();
  let out = "";
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  // Ready when its readiness endpoint answers (a few hundred ms); give up after 20 s.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async alerts() {
      const res = await fetch(`${url}/api/v1/alerts`, { signal: AbortSignal.timeout(2_000) });
      const body = AlertsAnswer.parse(await res.json());
      return body.data.alerts.map((a) => ({
        name: a.labels.alertname ?? "",
        state: a.state,
        labels: a.labels,
      }));
    },
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`, {
        signal: AbortSignal.timeout(2_000),
      });
      const first = QueryAnswer.parse(await res.json()).data.result[0];
      return first === undefined ? undefined : Number(first.value[1]);
    },
    output: () => out,
    stop,
  };
}
