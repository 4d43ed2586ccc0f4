// monitoring/grafana: the dashboard has the panels an operator looks at first, reads only metrics
// the bot exports, and its provisioning points where docker-compose.yml mounts it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { metricNames } from "./prometheusSupport.ts";
import { REPO_ROOT } from "./support.ts";

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");

const Target = z.object({ refId: z.string(), expr: z.string().min(1), legendFormat: z.string() });
const Panel = z.object({
  id: z.number().int(),
  type: z.enum(["row", "timeseries", "stat"]),
  title: z.string().min(1),
  description: z.string().optional(),
  datasource: z.object({ type: z.literal("prometheus"), uid: z.string() }).optional(),
  gridPos: z.object({ h: z.number(), w: z.number().max(24), x: z.number().min(0).max(23), y: z.number() }),
  targets: z.array(Target).optional(),
});
const Dashboard = z.object({
  uid: z.string().min(1),
  title: z.string().min(1),
  panels: z.array(Panel).min(1),
});

const DASHBOARD_FILE = "monitoring/grafana/dashboards/market-alerts-bot.json";
const dashboard = Dashboard.parse(JSON.parse(read(DASHBOARD_FILE)));
const graphs = dashboard.panels.filter((p) => p.type !== "row");

describe("the Grafana dashboard", () => {
  it("GIVEN the dashboard WHEN an operator opens it THEN it has the panels looked at first, each explained", () => {
    const titles = graphs.map((p) => p.title);
    for (const title of [
      "Alert latency",
      "Feed lag",
      "Marketplace requests by endpoint",
      "Marketplace 429s by endpoint",
      "Outbox depth",
      "DM rate",
      "Matches per cycle",
      "Rules and users",
      "Automatic actions (24 h)",
      "Money committed (24 h)",
    ])
      expect(titles).toContain(title);
    for (const p of graphs) {
      expect(p.description, p.title).toMatch(/\S{3,}/);
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  });

  it("GIVEN each panel's queries WHEN they select metrics THEN the bot exports each (or it is the drift gauge, up, or the process start time)", () => {
    const exported = read("src/metrics.ts") + read("src/metricsDatabase.ts");
    const known = new Set(["up", "process_start_time_seconds", "market_contract_drift"]);
    for (const expr of graphs.flatMap((p) => (p.targets ?? []).map((t) => t.expr))) {
      const names = metricNames(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names)
        if (!known.has(name)) expect(exported, `${expr} reads ${name}`).toContain(`"${name}"`);
    }
  });

  it("GIVEN Grafana's provisioning WHEN it starts in the monitoring profile THEN the panels' data source is the provisioned Prometheus and the dashboards folder is the mounted one", () => {
    const datasources = z
      .object({ datasources: z.array(z.object({ uid: z.string(), type: z.string(), url: z.string() })) })
      .parse(parseYaml(read("monitoring/grafana/provisioning/datasources/prometheus.yml"))).datasources;
    expect(datasources).toHaveLength(1);
    expect(datasources[0]?.type).toBe("prometheus");
    expect(datasources[0]?.url).toBe("http://prometheus:9090");
    for (const p of graphs) expect(p.datasource?.uid, p.title).toBe(datasources[0]?.uid);

    const providers = z
      .object({
        providers: z.array(z.object({ type: z.literal("file"), options: z.object({ path: z.string() }) })),
      })
      .parse(parseYaml(read("monitoring/grafana/provisioning/dashboards/dashboards.yml"))).providers;
    const compose = read("docker-compose.yml");
    for (const provider of providers)
      expect(compose).toContain(`./monitoring/grafana/dashboards:${provider.options.path}:ro`);
    expect(compose).toContain(`${providers[0]?.options.path ?? ""}/${path.basename(DASHBOARD_FILE)}`);
  });
});
