// monitoring/prometheus: the alert rules cover what should wake someone, each with a summary and a
// runbook entry in docs/operations.md, and promtool accepts the rules, their unit tests and the config.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  metricNames,
  missingBinaryNotice,
  PROMTOOL_BIN,
  readAlertRules,
  RULES_DIR,
} from "./prometheusSupport.ts";
import { REPO_ROOT } from "./support.ts";

const rules = readAlertRules();

const operations = readFileSync(path.join(REPO_ROOT, "docs", "operations.md"), "utf8");

describe("alert rules", () => {
  it("GIVEN the rules WHEN read THEN every situation that should wake someone has an alert that pages", () => {
    const paging = new Set(rules.filter((r) => r.labels.severity === "page").map((r) => r.alert));
    for (const name of [
      "FeedStalled",
      "NoFeedLeader",
      "OutboxBacklogOld",
      "DmsFailing",
      "MarketServerErrors",
      "DatabaseUnreachable",
      "ReplicaRestartLoop",
      "BotDown",
    ])
      expect(paging, name).toContain(name);
    const all = new Set(rules.map((r) => r.alert));
    for (const name of ["FeedLagging", "OutboxBacklogGrowing", "MarketRateLimited", "MarketContractDrift"])
      expect(all, name).toContain(name);
    expect(all.size, "alert names are unique").toBe(rules.length);
  });

  it("GIVEN each rule WHEN an operator is paged THEN its runbook annotation points to an entry of docs/operations.md under its name", () => {
    for (const rule of rules) {
      expect(rule.annotations.runbook).toBe(`docs/operations.md, Alerts: ${rule.alert}`);
      expect(operations, `no runbook line for ${rule.alert}`).toMatch(
        new RegExp(`^- \\*\\*${rule.alert}\\*\\* \\((page|ticket)\\): \\S.{40,}`, "m"),
      );
      const documented = new RegExp(`^- \\*\\*${rule.alert}\\*\\* \\((page|ticket)\\)`, "m").exec(operations);
      expect(documented?.[1], `${rule.alert}'s severity in the runbook`).toBe(rule.labels.severity);
    }
  });

  it("GIVEN the rules WHEN they select metrics THEN each metric is one the bot exports, or the contract-drift gauge of the doctor, or Prometheus's own up", () => {
    const exported = readFileSync(path.join(REPO_ROOT, "src", "metrics.ts"), "utf8").concat(
      readFileSync(path.join(REPO_ROOT, "src", "metricsDatabase.ts"), "utf8"),
    );
    const known = new Set(["up", "process_start_time_seconds", "market_contract_drift"]);
    for (const rule of rules) {
      const names = metricNames(rule.expr);
      expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names) {
        if (known.has(name)) continue;
        expect(exported, `${rule.alert} reads ${name}, which the bot does not export`).toContain(`"${name}"`);
      }
    }
  });
});

describe.skipIf(missingBinaryNotice(PROMTOOL_BIN))("promtool", () => {
  const promtool = (...args: string[]) =>
    execFileSync(PROMTOOL_BIN, args, { cwd: RULES_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  it("GIVEN alerts.yml WHEN promtool checks it THEN it accepts every rule", () => {
    expect(promtool("check", "rules", "alerts.yml")).toMatch(
      new RegExp(`SUCCESS: ${rules.length} rules found`),
    );
  });

  it("GIVEN the rules' unit tests WHEN promtool runs them THEN each alert fires at its threshold and duration and not before", () => {
    expect(promtool("test", "rules", "alerts.test.yml")).toMatch(/SUCCESS/);
  });

  it("GIVEN the monitoring profile's prometheus.yml WHEN promtool checks it THEN it is valid and loads the rules", () => {
    expect(promtool("check", "config", "prometheus.yml")).toMatch(/SUCCESS: 1 rule files found/);
  });
});
