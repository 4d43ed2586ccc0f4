// From drift per endpoint and field to what a user would notice: for each command and alert kind,
// works, degraded (what is lost) or broken, from the routes and fields it relies on.
import type { DriftFinding } from "../market/contract/inspect.ts";
import type { MoneyAction } from "../market/contract/rules.ts";
import type { ProbeResult, ReadRoute } from "./probes.ts";

export type Verdict = "works" | "degraded" | "broken";

/** A route and the fields the feature cannot do without (all serious drift on the route if absent). */
interface Need {
  readonly route: ReadRoute;
  readonly fields?: readonly string[];
}

/** A route or fields whose loss costs a part of the feature, named in `loses`. */
interface Extra extends Need {
  readonly loses: string;
}

interface Feature {
  readonly name: string;
  readonly kind: "command" | "alert";
  readonly needs: readonly Need[];
  readonly extras?: readonly Extra[];
  /** Spends money: broken while an amount it spends from may have changed meaning. */
  readonly money?: MoneyAction;
}

export interface FeatureVerdict {
  readonly name: string;
  readonly kind: "command" | "alert";
  readonly verdict: Verdict;
  /** For degraded: what is lost. For broken: why. */
  readonly because: readonly string[];
}

const LISTING_CORE = ["id", "price", "type", "state", "item", "item.market_hash_name"];
const PAGE_CORE = ["(root)", "data", ...LISTING_CORE.map((f) => `data[].${f}`)];
const ITEM_DETAIL = ["data[].item.float_value", "data[].item.paint_seed", "data[].item.def_index"];
const AUCTION = [
  "auction_details.min_next_bid",
  "auction_details.expires_at",
  "auction_details.top_bid.price",
];

const FEATURES: readonly Feature[] = [
  {
    name: "/account",
    kind: "command",
    // Linking checks the key with one ledger read; who-am-i only greets the user by name.
    needs: [{ route: "getTransactions" }],
    extras: [{ route: "getMe", loses: "the account's name and platform id" }],
  },
  {
    name: "/search",
    kind: "command",
    needs: [{ route: "searchListings", fields: PAGE_CORE }],
    extras: [
      { route: "searchListings", fields: ITEM_DETAIL, loses: "float and pattern filters match nothing" },
    ],
  },
  {
    name: "/listing",
    kind: "command",
    needs: [{ route: "getListing", fields: ["(root)", ...LISTING_CORE] }],
    extras: [
      { route: "getListingBids", loses: "the bid history" },
      { route: "getSimilarListings", loses: "similar listings" },
      { route: "getListingBuyOrders", loses: "the buy orders beside a listing" },
    ],
  },
  {
    name: "/buy",
    kind: "command",
    money: "buy",
    needs: [{ route: "getListing", fields: ["(root)", ...LISTING_CORE] }],
  },
  {
    name: "/bid",
    kind: "command",
    money: "bid",
    needs: [{ route: "getListing", fields: ["(root)", ...LISTING_CORE, ...AUCTION] }],
    extras: [{ route: "getListingBids", loses: "the bid history" }],
  },
  {
    name: "/offer",
    kind: "command",
    money: "offer",
    needs: [{ route: "getListing", fields: ["(root)", ...LISTING_CORE] }],
    extras: [{ route: "getOffersTimeline", loses: "the list of your offers" }],
  },
  {
    name: "/buyorder",
    kind: "command",
    money: "buyOrder",
    needs: [{ route: "getMyBuyOrders" }],
    extras: [
      { route: "getSimilarBuyOrders", loses: "the rival orders shown before placing one" },
      { route: "getListingBuyOrders", loses: "the buy orders beside a listing" },
    ],
  },
  {
    name: "/history",
    kind: "command",
    needs: [{ route: "getHistoryGraph" }],
    extras: [{ route: "getHistorySales", loses: "recent sales" }],
  },
  { name: "/stall", kind: "command", needs: [{ route: "getStall" }] },
  {
    name: "/sell",
    kind: "command",
    needs: [{ route: "getStall" }],
    extras: [{ route: "getHistorySales", loses: "recent sales as a price hint" }],
  },
  {
    name: "/trades",
    kind: "command",
    needs: [{ route: "getMyTrades" }],
    extras: [{ route: "getTrade", loses: "one trade's details" }],
  },
  { name: "/watchlist", kind: "command", needs: [{ route: "getWatchlist", fields: PAGE_CORE }] },
  {
    name: "/portfolio",
    kind: "command",
    needs: [{ route: "getTransactions" }],
    extras: [{ route: "getMyTrades", loses: "open trades in the portfolio" }],
  },
  {
    name: "/watch",
    kind: "command",
    needs: [{ route: "searchListings", fields: PAGE_CORE }],
    extras: [{ route: "searchListings", fields: ITEM_DETAIL, loses: "float and pattern rules never match" }],
  },
  {
    name: "listing",
    kind: "alert",
    needs: [{ route: "searchListings", fields: PAGE_CORE }],
    extras: [
      { route: "searchListings", fields: ITEM_DETAIL, loses: "rules on float or pattern never fire" },
      { route: "getHistoryGraph", loses: "deal quality against the price history" },
    ],
  },
  {
    name: "auto_buy",
    kind: "alert",
    money: "buy",
    needs: [
      { route: "searchListings", fields: PAGE_CORE },
      { route: "getListing", fields: ["(root)", ...LISTING_CORE] },
    ],
  },
  {
    name: "outbid",
    kind: "alert",
    needs: [{ route: "getListing", fields: ["(root)", ...LISTING_CORE, ...AUCTION] }],
  },
  {
    name: "auction_ended",
    kind: "alert",
    needs: [{ route: "getListing", fields: ["(root)", "id", "state", "type"] }],
  },
  { name: "trade", kind: "alert", needs: [{ route: "getMyTrades" }] },
  { name: "auto_accept", kind: "alert", needs: [{ route: "getMyTrades" }] },
  { name: "settlement", kind: "alert", needs: [{ route: "getMyTrades" }] },
  { name: "buy_order_fill", kind: "alert", needs: [{ route: "getMyBuyOrders" }] },
  { name: "reversal", kind: "alert", needs: [{ route: "getTransactions" }] },
  {
    name: "weekly_report",
    kind: "alert",
    needs: [{ route: "getTransactions" }],
    extras: [{ route: "getMyTrades", loses: "trades in the report" }],
  },
];

/**
 * Drift that costs something. Unknown fields are listed, never counted; so are single unreadable
 * elements, which the bot reads around (a change of contract shows as missing or retyped fields in
 * most elements). An answer unreadable as a whole is serious.
 */
export function isSerious(finding: DriftFinding): boolean {
  if (finding.kind === "unknown") return false;
  return finding.kind !== "unreadable" || finding.field === "(root)";
}

/** Answered, but not with what could be checked: a best-effort route absent, one resource hidden (403). */
function unavailable(probe: ProbeResult): boolean {
  if (typeof probe.status !== "number" || (probe.status >= 200 && probe.status < 300)) return false;
  return !probe.findings.some((f) => f.kind === "status");
}

export function judgeFeatures(results: readonly ProbeResult[]): FeatureVerdict[] {
  const byRoute = new Map<ReadRoute, ProbeResult[]>();
  for (const r of results) byRoute.set(r.route, [...(byRoute.get(r.route) ?? []), r]);
  const moneyDrift = results.flatMap((r) =>
    r.findings.filter((f) => isSerious(f) && f.money !== undefined).map((f) => ({ endpoint: r.endpoint, f })),
  );

  /** What is wrong with a route for these fields, as short reasons; empty when it holds. */
  function problems(need: Need): string[] {
    const probes = byRoute.get(need.route) ?? [];
    const out: string[] = [];
    for (const probe of probes) {
      if (probe.status === "skipped") continue;
      for (const f of probe.findings) {
        // A changed reset unit costs pacing, not the feature: judged apart, below.
        if (!isSerious(f) || f.field.startsWith("header:")) continue;
        const relevant =
          need.fields === undefined ||
          f.kind === "status" ||
          f.field === "(root)" ||
          f.kind === "unreadable" ||
          need.fields.includes(f.field);
        if (relevant) out.push(`${probe.endpoint} ${f.field} ${f.kind}`);
      }
      if (typeof probe.status !== "number") out.push(`${probe.endpoint} ${probe.status}`);
    }
    return [...new Set(out)];
  }

  return FEATURES.map((feature) => {
    const broken = feature.needs.flatMap(problems);
    if (feature.money !== undefined) {
      const action = feature.money;
      const amounts = moneyDrift
        .filter(({ f }) => f.money?.includes(action))
        .map(({ endpoint, f }) => `${endpoint} ${f.field}`);
      if (amounts.length > 0) {
        broken.push(
          `amounts may have changed meaning (${[...new Set(amounts)].join(", ")}): refused until the operator checks`,
        );
      }
    }
    if (broken.length > 0)
      return { name: feature.name, kind: feature.kind, verdict: "broken", because: [...new Set(broken)] };
    const lost = (feature.extras ?? [])
      .filter((e) => problems(e).length > 0 || (byRoute.get(e.route) ?? []).some(unavailable))
      .map((e) => e.loses);
    for (const need of feature.needs) {
      const unchecked = (byRoute.get(need.route) ?? []).find((p) => p.status === "skipped" || unavailable(p));
      if (unchecked !== undefined)
        lost.push(`not checked: ${unchecked.endpoint} (${unchecked.note ?? "skipped"})`);
    }
    const header = feature.needs.some((n) =>
      (byRoute.get(n.route) ?? []).some((p) => p.findings.some((f) => f.field.startsWith("header:"))),
    );
    if (header) lost.push("rate-limit pacing (the reset header changed unit)");
    if (lost.length > 0)
      return { name: feature.name, kind: feature.kind, verdict: "degraded", because: [...new Set(lost)] };
    return { name: feature.name, kind: feature.kind, verdict: "works", because: [] };
  });
}
