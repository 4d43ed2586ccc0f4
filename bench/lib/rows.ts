// The table's rows, one builder per scenario: what was measured, on what, against which target.
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
import type { ScenarioRecord, Scenarios, TableRow } from "./report.ts";

const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const s1 = (n: number) => `${(n / 1000).toFixed(1)} s`;

function machineText(r: ScenarioRecord<unknown>): string {
  const m = r.machine;
  return `${m.cores} cores (${m.cpu}), Node ${m.node.replace(/^v/, "")}, load ${m.load1}`;
}

function latencyRows(r: ScenarioRecord<LatencyResult[]>): TableRow[] {
  const rows: TableRow[] = [];
  for (const l of r.result) {
    const setup =
      `${int(l.users)} users, ${int(l.rules)} rules (bulk-loaded), ${l.listings.matching} matching ` +
      `listings at phases spread over the poll period (created p50 ${ms(l.placedLate.p50)}, at most ` +
      `${ms(l.placedLate.max)} after the planned phase) + ${l.listings.noise} other listings at random ` +
      `times, over ${s1(l.listings.durationMs)}, POLL_INTERVAL_MS ${l.intervalMs} (polls every ` +
      `${Math.round(l.feed.measuredPeriodMs)} ms), ` +
      `${int(l.dms.received)}/${int(l.dms.expected)} DMs` +
      // Older results files do not say; since ADR 039 the users' DM channels are kept.
      (l.dms.channelOpens === undefined
        ? ""
        : ` (DM channels kept when the rules were saved: ${int(l.dms.channelOpens)} opened)`) +
      `; ${r.database}; ${machineText(r)}`;
    const p50Target = l.intervalMs / 2 + 50;
    const p99Target = l.intervalMs + 150;
    const complete = l.dms.missing === 0 && l.dms.unexpected === 0;
    rows.push({
      measure: `Alert latency p50 (listing created → DM request at Discord), interval ${l.intervalMs} ms`,
      setup,
      target: `≤ ${ms(p50Target)}`,
      measured: `${ms(l.perDm.p50)} (first DM per listing ${ms(l.perListingFirst.p50)})`,
      met: complete && l.perDm.p50 <= p50Target,
    });
    rows.push({
      measure: `Alert latency p95 / p99 / max, interval ${l.intervalMs} ms`,
      setup: "same run",
      target: `p99 ≤ ${ms(p99Target)}`,
      measured:
        `${ms(l.perDm.p95)} / ${ms(l.perDm.p99)} / ${ms(l.perDm.max)}; detection p50 ${ms(l.detection.p50)}` +
        // Older results files have no split.
        (l.detectionSplit === undefined
          ? ""
          : ` (poll wait ${ms(l.detectionSplit.pollWait.p50)}, page → row ${ms(l.detectionSplit.pageToRow.p50)})`) +
        `, delivery p50 ${ms(l.delivery.p50)}` +
        (complete ? "" : `; ${l.dms.missing} DMs missing, ${l.dms.unexpected} unexpected`),
      met: complete && l.perDm.p99 <= p99Target,
    });
  }
  return rows;
}

function snipeRows(r: ScenarioRecord<SnipeResult>): TableRow[] {
  const x = r.result;
  const complete = x.bought === x.listings && x.buyRequests === x.listings;
  const setup =
    `${int(x.armed)} rules armed live among ${int(x.rules)} (bulk-loaded), ${x.traders} linked traders, ` +
    `${x.listings} listings for armed rules at random times, POLL_INTERVAL_MS ${x.intervalMs}, ` +
    `${x.bought}/${x.listings} bought with ${x.buyRequests} purchase requests` +
    (x.coldReactions === undefined || x.coldReactions.length === 0
      ? ""
      : `, after ${x.coldReactions.length} warm-up purchases (the first after the start: ${x.coldReactions.map(ms).join(", ")})`) +
    `; ${r.database}; ${machineText(r)}`;
  const other = Object.entries(x.otherOutcomes)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return [
    {
      measure: "Snipe reaction p50 / p99 (feed page read → POST /listings/buy leaves)",
      setup,
      target: "p50 and p99 ≤ 50 ms",
      measured:
        `${ms(x.reaction.p50)} / ${ms(x.reaction.p99)} (max ${ms(x.reaction.max)}` +
        (x.split === undefined
          ? ""
          : `; page → claim ${ms(x.split.toClaim.p50)} / ${ms(x.split.toClaim.p99)}, claim → request ${ms(x.split.claimToRequest.p50)} / ${ms(x.split.claimToRequest.p99)}`) +
        `)${other === "" ? "" : `; ${other}`}`,
      met: complete && x.reaction.p50 <= 50 && x.reaction.p99 <= 50,
    },
    {
      measure: "Snipe: listing created → POST /listings/buy, p50 / p99",
      setup: "same run (includes waiting for the next poll)",
      target: `p50 ≤ ${ms(x.intervalMs / 2 + 50)}, p99 ≤ ${ms(x.intervalMs + 50)}`,
      measured: `${ms(x.createdToRequest.p50)} / ${ms(x.createdToRequest.p99)}`,
      met:
        complete &&
        x.createdToRequest.p50 <= x.intervalMs / 2 + 50 &&
        x.createdToRequest.p99 <= x.intervalMs + 50,
    },
  ];
}

function scaleRows(r: ScenarioRecord<ScaleResult>): TableRow[] {
  const x = r.result;
  const setup =
    `${int(x.users)} linked users on one address, budget ${x.budget.limit} requests per ${s1(x.budget.windowMs)} ` +
    `(the sandbox refuses past it), ${x.trades.made} sales waiting on sellers, standing bids, users running /search, ` +
    `${s1(x.durationMs)}; feed every ${ms(x.feedIntervalMs)} (25% of the budget); ${r.database}; ${machineText(r)}`;
  const feedTarget = 1.2 * (x.feedIntervalMs / 2) + 100;
  return [
    {
      measure: "Scale: command ack p99 / answer p99",
      setup,
      target: "both < 1,000 ms",
      measured: `${ms(x.commandAck.p99)} / ${ms(x.commandAnswer.p99)} (${x.commandAnswer.n} commands, ${x.unanswered} unanswered)`,
      met: x.unanswered === 0 && x.commandAck.p99 < 1000 && x.commandAnswer.p99 < 1000,
    },
    {
      measure: "Scale: feed latency p50 (listing created → alert committed)",
      setup: "same run",
      target: `≤ 1.2 × half the read interval + 100 ms = ${ms(feedTarget)}`,
      measured: `${ms(x.feedDetection.p50)} (p99 ${ms(x.feedDetection.p99)}; ${x.feedMissing} missing)`,
      met: x.feedMissing === 0 && x.feedDetection.p50 <= feedTarget,
    },
    {
      measure: "Scale: trade alerts before their deadline; sale → alert p50",
      setup: "same run",
      target: "every one; p50 ≤ 60 s",
      measured: `${x.trades.beforeDeadline}/${x.trades.made} (sale → alert p50 ${s1(x.trades.saleToAlert.p50)}, max ${s1(x.trades.saleToAlert.max)})`,
      met:
        x.trades.made > 0 && x.trades.beforeDeadline === x.trades.made && x.trades.saleToAlert.p50 <= 60_000,
    },
    {
      measure: "Scale: 429s from the marketplace",
      setup: `same run; ${int(x.requests)} requests; scheduler budget ${x.scheduler.source}`,
      target: "0",
      measured: String(x.refused429),
      met: x.refused429 === 0,
    },
  ];
}

function matchingRows(r: ScenarioRecord<MatchingBenchRow[]>): TableRow[] {
  return r.result.map((m) => {
    const top = m.rules === Math.max(...r.result.map((x) => x.rules));
    return {
      measure: `Matching, ${int(m.rules)} rules (CPU time per listing)`,
      setup: `index vs linear scan of precompiled rules, same run, ${m.matchesPerListing.toFixed(2)} matches per listing; index heap ${m.indexHeapMb.toFixed(1)} MB; ${machineText(r)}`,
      target: top ? "≤ 20 µs and ≥ 100× faster" : "—",
      measured: `${m.indexUs.toFixed(2)} µs vs ${m.linearCompiledUs.toFixed(1)} µs (${Math.round(m.speedup)}×; uncompiled scan ${m.linearUs.toFixed(0)} µs)`,
      met: top ? m.indexUs <= 20 && m.speedup >= 100 : null,
    };
  });
}

function economyRows(r: ScenarioRecord<EconomyResult>): TableRow[] {
  const e = r.result;
  const counts = e.rows.map((x) => int(x.rules)).join(" / ");
  const base = e.rows[0]?.callsPerCycle ?? 1;
  const constant = e.rows.every((x) => Math.abs(x.callsPerCycle - base) <= 0.1 * base);
  const max = e.rows[e.rows.length - 1];
  return [
    {
      measure: `Marketplace calls per feed cycle at ${counts} rules`,
      setup: `the app's client metrics hook, ${e.rows[0]?.cycles ?? 0} cycles each, POLL_INTERVAL_MS ${e.intervalMs}, listings arriving; ${machineText(r)}`,
      target: "constant in the rule count",
      measured: `${e.rows.map((x) => x.callsPerCycle.toFixed(2)).join(" / ")} (naive, one search per rule: ${e.rows.map((x) => int(x.naiveCallsPerCycle)).join(" / ")})`,
      met: constant,
    },
    {
      measure: `Naive design's cost at ${int(max?.rules ?? 0)} rules`,
      setup: `${e.naive.sample} per-rule searches timed against the sandbox, ${e.naive.concurrency} at a time`,
      target: "—",
      measured:
        `${e.naive.msPerSearch.toFixed(2)} ms per search → ${s1(e.naive.cycleMsAtMax)} per cycle; ` +
        `a ${int(e.naive.budget.limit)}/${s1(e.naive.budget.windowMs)} budget allows one cycle every ${s1(e.naive.budgetPeriodMsAtMax)}`,
      met: null,
    },
  ];
}

function ackRows(r: ScenarioRecord<AckResult>): TableRow[] {
  return r.result.modes.map((m) => {
    const worst = Object.values(m.commands).reduce((a, c) => Math.max(a, c.p99), 0);
    return {
      measure: `Interaction acknowledgement p99, marketplace answering after ${m.marketLatencyMs === 0 ? "0 s" : s1(m.marketLatencyMs)}`,
      setup: `${r.result.commands} commands/subcommands × ${r.result.rounds} rounds, dispatch → first callback at Discord; ${machineText(r)}`,
      target: "p99 < 1,000 ms for every command",
      measured:
        `p50 ${ms(m.overall.p50)}, p99 ${ms(m.overall.p99)}, slowest /${m.slowest.command} ${ms(m.slowest.p99)}` +
        (m.unanswered > 0 ? `; ${m.unanswered} unanswered` : ""),
      met: m.unanswered === 0 && worst < 1000,
    };
  });
}

function memoryRows(r: ScenarioRecord<MemoryResult>): TableRow[] {
  // One row per configuration; repeated runs give the median and the range.
  const groups = new Map<string, MemoryResult["readings"]>();
  for (const m of r.result.readings) {
    const key = `${m.rules}|${m.runner}|${m.nodeFlags.join(" ")}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((runs) => {
    const sorted = [...runs].sort((a, b) => a.rssMb - b.rssMb);
    const m = sorted[Math.floor((sorted.length - 1) / 2)] as MemoryResult["readings"][number];
    const target = m.rules >= 100_000 && m.runner === "compiled" && m.productionFlags;
    const node = ["node", ...m.nodeFlags].join(" ");
    const how =
      m.runner === "compiled"
        ? `compiled JavaScript under \`${node}\`${m.productionFlags ? " (the Dockerfile's CMD)" : ""}`
        : `under tsx, \`${node} --import tsx\`${m.productionFlags ? " (`npm start`)" : ""}`;
    const range =
      runs.length > 1
        ? ` (median of ${runs.length}: ${sorted.map((x) => x.rssMb.toFixed(0)).join(", ")} MB)`
        : "";
    const variant =
      (m.runner === "tsx" ? ", `npm start` (tsx)" : "") +
      (m.productionFlags
        ? ""
        : m.nodeFlags.length === 0
          ? ", without node flags"
          : `, ${m.nodeFlags.join(" ")}`);
    return {
      measure: `RSS with ${int(m.rules)} rules in the engine's index${variant}`,
      setup: `the real app in a child process, ${how}, once RSS is steady after the load (GC each second, ${s1(m.settleMs)}); heap ${m.heapUsedMb} MB used / ${m.heapTotalMb} MB; peak RSS during the load ${m.peakRssMb.toFixed(0)} MB; loaded in ${s1(m.loadedMs)}; ${machineText(r)}`,
      target: target ? "≤ 250 MB" : "—",
      measured: `${m.rssMb.toFixed(1)} MB${range}`,
      met: target ? m.rssMb <= 250 : null,
    };
  });
}

function millionRows(r: ScenarioRecord<MillionResult>): TableRow[] {
  const x = r.result;
  const m = x.memory;
  const mix = `${int(x.rules)} rules, ${Math.round(x.itemless * 100)}% without an item name`;
  const rows: TableRow[] = [
    {
      measure: `Matching, ${mix} (CPU time per listing)`,
      setup: `the bench's realistic rules plus item-less ones (def/paint, knife float hunts, stickers, keychains, whole-market discount, float, profit and category rules), ${int(x.listings)} listings, ${x.matchesPerListing.toFixed(1)} matches per listing (median ${x.matchesP50}, p90 ${x.matchesP90}, max ${int(x.matchesMax)}); index built in ${s1(x.buildMs)}, heap ${x.indexHeapMb.toFixed(1)} MB; linear scan of precompiled rules ${int(x.linearCompiledUs)} µs; ${machineText(r)}`,
      target: "≤ 5 µs",
      measured: `${x.indexUs.toFixed(2)} µs${x.passUs === undefined ? "" : `, median of ${x.passUs.length} passes (${x.passUs.map((u) => u.toFixed(2)).join(", ")})`} (${Math.round(x.linearCompiledUs / x.indexUs)}× the linear scan)`,
      met: x.indexUs <= 5,
    },
  ];
  if (m === undefined) return rows;
  const how = `the real app in a child process, compiled JavaScript under \`${["node", ...m.nodeFlags].join(" ")}\``;
  rows.push(
    {
      measure: `RSS with ${mix}, in the engine's index`,
      setup: `${how}, once RSS is steady after the load (GC each second, ${s1(m.settleMs)}); heap ${m.heapUsedMb} MB used / ${m.heapTotalMb} MB; peak RSS during the load ${m.peakRssMb.toFixed(0)} MB; ${r.database}; ${machineText(r)}`,
      target: "≤ 400 MB",
      measured: `${m.rssMb.toFixed(1)} MB`,
      met: m.rssMb <= 400,
    },
    {
      measure: `Load of ${mix} (database → index)`,
      setup: `same run: the rule index's full load (batched read, parse, index); createApp to every rule loaded and the first feed page read: ${s1(m.loadedMs)}`,
      target: "≤ 10 s",
      measured: m.indexLoadMs === undefined ? "not reported" : s1(m.indexLoadMs),
      met: m.indexLoadMs !== undefined && m.indexLoadMs <= 10_000,
    },
  );
  return rows;
}

function startRows(r: ScenarioRecord<StartResult>): TableRow[] {
  const s = r.result;
  const reused = s.runs.filter((x) => x.kind === "warm" && (x.reusedServer || x.initialisedCluster)).length;
  const notFresh = s.runs.filter((x) => x.kind === "cold" && !x.initialisedCluster).length;
  const unclean = s.runs.filter((x) => x.exitCode !== 0).length;
  const cold = s.runs.filter((x) => x.kind === "cold");
  const warm = s.runs.filter((x) => x.kind === "warm");
  const phases = (x: { databaseMs: number | undefined; discordMs: number | undefined }) =>
    `database ${x.databaseMs === undefined ? "?" : s1(x.databaseMs)}, Discord ${x.discordMs === undefined ? "?" : s1(x.discordMs)}`;
  return [
    {
      measure: "Cold start to ready (fresh data folder)",
      setup: `src/main.ts under tsx${s.nodeFlags === undefined ? "" : ` (\`node ${[...s.nodeFlags, "--import tsx"].join(" ")}\`, \`npm start\`)`}, embedded Postgres initdb + migrations + key file + Discord login (local double)${notFresh > 0 ? `; ${notFresh} did not run initdb` : ""}; ${machineText(r)}`,
      target: "—",
      measured: cold.map((x) => `${s1(x.readyMs)} (${phases(x)})`).join("; "),
      met: null,
    },
    {
      measure: "Warm start to ready (same data folder)",
      setup: `${warm.length} runs, each starting the embedded server its predecessor stopped${reused > 0 ? `; ${reused} reused a running server or ran initdb` : ""}${unclean > 0 ? `; ${unclean} unclean exits` : ""}`,
      target: "≤ 3.0 s",
      measured: `median ${s1(s.warm.p50)}, worst ${s1(s.warm.max)} (${warm[0] ? phases(warm[0]) : ""})`,
      met: reused === 0 && s.warm.n > 0 && s.warm.max <= 3000,
    },
  ];
}

function throughputRows(r: ScenarioRecord<ThroughputResult>): TableRow[] {
  const t = r.result;
  const setup = `${int(t.alerts)} alerts queued at once for ${int(t.users)} users, per-channel budget ${t.budget.limit} per ${s1(t.budget.windowMs)} with rate-limit headers; ${r.database}; ${machineText(r)}`;
  return [
    {
      measure: "Delivery throughput",
      setup,
      target: "≥ 40 alerts/s (Discord's global limit is 50 requests/s)",
      measured: `${t.alertsPerSecond.toFixed(1)} alerts/s, ${int(t.sent)}/${int(t.alerts)} sent, drained in ${s1(t.drainMs)} (${int(t.discordRequests)} requests)`,
      met: t.sent === t.alerts && t.alertsPerSecond >= 40,
    },
    {
      measure: "429s from ignoring rate-limit headers",
      setup: "same run",
      target: "0",
      measured: `${t.rateLimited429} (retried ${t.retried}, failed ${t.failed})`,
      met: t.rateLimited429 === 0,
    },
  ];
}

function fanOutRows(r: ScenarioRecord<FanOutResult>): TableRow[] {
  const f = r.result;
  const all = f.delivered === f.users;
  const setup =
    `one listing matching ${int(f.users)} users' rules (bulk-loaded, one item), ${f.armed} armed in shadow mode, ` +
    `DM channels kept from earlier DMs; Discord double enforcing 50 requests/s and ${f.budget.limit} messages per ` +
    `${s1(f.budget.windowMs)} per channel; ${r.database}; ${machineText(r)}`;
  return [
    {
      measure: "Fan-out: DMs per second (first → last DM)",
      setup,
      target: "≥ 45 DMs/s, all delivered (Discord's global limit is 50 requests/s)",
      measured:
        `${f.dmsPerSecond.toFixed(1)} DMs/s, ${int(f.delivered)}/${int(f.users)} delivered, listing → last DM ${s1(f.drainMs)} ` +
        `(first ${ms(f.firstDmMs)}; ${int(f.discordRequests)} requests, ${f.dmChannelOpens} DM opens)`,
      met: all && f.dmsPerSecond >= 45,
    },
    {
      measure: "Fan-out order: armed outcome DMs before any ordinary one",
      setup: "same run",
      target: "0 out of order",
      measured: `${f.armedOutOfOrder} of ${f.armed} out of order`,
      met: all && f.armedOutOfOrder === 0,
    },
    {
      measure: "Fan-out order: ordinary DMs oldest rule first",
      setup: "same run (sends run side by side within a batch)",
      target: "informative",
      measured: `farthest ${f.ordinaryMaxDisplacement} places from rule-age order, ${f.ordinaryInversions} adjacent inversions`,
      met: null,
    },
    {
      measure: "Fan-out: 429s (global or per channel)",
      setup: "same run",
      target: "0",
      measured: `${f.rateLimited429} (retried ${f.retried}, failed ${f.failed})`,
      met: f.rateLimited429 === 0,
    },
  ];
}

export function buildTable(s: Scenarios): TableRow[] {
  return [
    ...(s.latency ? latencyRows(s.latency) : []),
    ...(s.snipe ? snipeRows(s.snipe) : []),
    ...(s.scale ? scaleRows(s.scale) : []),
    ...(s.matching ? matchingRows(s.matching) : []),
    ...(s.economy ? economyRows(s.economy) : []),
    ...(s.ack ? ackRows(s.ack) : []),
    ...(s.memory ? memoryRows(s.memory) : []),
    ...(s.million ? millionRows(s.million) : []),
    ...(s.start ? startRows(s.start) : []),
    ...(s.throughput ? throughputRows(s.throughput) : []),
    ...(s.fanOut ? fanOutRows(s.fanOut) : []),
  ];
}
