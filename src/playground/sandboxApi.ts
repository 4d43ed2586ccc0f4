// The sandbox panel's routes (/api/sandbox/...): the user's account and inventory, listings on demand,
// rival bids and buy orders, sales, reversals, the clock and injected faults.
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import type { RuleView } from "../watch/rules.ts";
import { ListingTemplate } from "../sandbox/control/index.ts";
import type { DemoUser, DriftSpec, FaultSpec, Sandbox } from "../sandbox/index.ts";
import type { DoubleUser } from "./discord/index.ts";
import { HttpFailure, Id, readJson, UserRef } from "./pageHttp.ts";
import { listingMatching } from "./ruleListing.ts";

const BidBody = z.object({ listingId: Id, maxPrice: z.number().int().min(1) });
const SaleBody = z.object({ user: UserRef });
const ReversalBody = z.object({ tradeId: Id });
const WebsiteOrderBody = z.object({
  user: z.string().min(1),
  marketHashName: z.string().trim().min(1).max(200),
  maxPrice: z.number().int().min(3),
  quantity: z.number().int().min(1).max(100).default(1),
});
const RivalOrderBody = z.object({
  marketHashName: z.string().trim().min(1).max(200),
  maxPrice: z.number().int().min(3),
  minFloat: z.number().min(0).max(1).optional(),
  maxFloat: z.number().min(0).max(1).optional(),
});
const ClockBody = z.object({
  ms: z
    .number()
    .int()
    .min(1)
    .max(365 * 86_400_000),
});
const FaultBody = z.object({
  path: z.string().trim().min(1).max(200),
  kind: z.enum(["5xx", "429", "latency", "hang"]),
});

/** The panel's four kinds of trouble, as sandbox fault specs. */
export const FAULT_KINDS: Readonly<Record<z.infer<typeof FaultBody>["kind"], Omit<FaultSpec, "path">>> = {
  "5xx": { kind: "status", status: 503 },
  "429": { kind: "rate_limit", retryAfterSeconds: 5 },
  // Well under the market client's 10 s timeout: slow answers that still arrive. Hang is the one
  // that never answers, so the two demonstrate different things.
  latency: { kind: "latency", ms: 3_000 },
  hang: { kind: "hang" },
};

const DriftBody = z.object({ kind: z.enum(["rename", "money", "route", "reset"]) });

/** The panel's four kinds of contract drift, each added to what the sandbox already changes. */
export function withDrift(current: DriftSpec, kind: z.infer<typeof DriftBody>["kind"]): DriftSpec {
  switch (kind) {
    case "rename":
      return { ...current, renameFields: { ...current.renameFields, "item.market_hash_name": "name" } };
    case "money":
      return { ...current, retypeFields: { ...current.retypeFields, price: "dollars" } };
    case "route": {
      const route = "GET /history/{market_hash_name}/sales";
      return { ...current, dropRoutes: [...new Set([...(current.dropRoutes ?? []), route])] };
    }
    case "reset":
      return { ...current, resetUnit: "epoch-milliseconds" };
  }
}

export interface SandboxApiDeps {
  /** The in-process sandbox; absent when MARKET_BASE_URL points at another marketplace. */
  readonly sandbox: Sandbox | undefined;
  /** The user's watch rules, for "matches my rule" in the panel. */
  readonly rulesOf: (discordUserId: string) => Promise<readonly RuleView[]>;
  readonly humanUser: (ref: string) => DoubleUser;
}

/** Answers one `/api/sandbox...` route ("METHOD /path"); `q` reads the query string. */
export function createSandboxApi(
  deps: SandboxApiDeps,
): (route: string, req: IncomingMessage, q: (name: string) => string) => Promise<unknown> {
  const { humanUser } = deps;
  const faults: { id: number; path: string; kind: string }[] = [];
  const needSandbox = (): Sandbox => {
    if (!deps.sandbox) throw new HttpFailure(409, "no sandbox runs: MARKET_BASE_URL is set");
    return deps.sandbox;
  };
  const demoOf = (user: DoubleUser): DemoUser | undefined =>
    deps.sandbox?.users.find((d) => d.name === user.username);

  const sandboxState = (user: DoubleUser) => {
    const sandbox = needSandbox();
    const demo = demoOf(user);
    const now = sandbox.control.now();
    const drift = sandbox.control.drift();
    if (!demo) return { account: null, now, faults, drift, catalog: sandbox.catalog, inventory: [] };
    return {
      account: {
        platformId: demo.platformId,
        apiKey: demo.apiKey,
        ...sandbox.control.balance(demo.platformId),
      },
      now,
      faults,
      drift,
      catalog: sandbox.catalog,
      inventory: sandbox.control.inventoryDetails(demo.platformId),
    };
  };

  return async (route, req, q) => {
    switch (route) {
      case "GET /api/sandbox":
        return sandboxState(humanUser(q("user")));
      case "GET /api/sandbox/rule-listings": {
        const user = humanUser(q("user"));
        const rules = await deps.rulesOf(user.id);
        return {
          rules: rules
            .filter((r) => r.enabled)
            .map((r) => ({ name: r.name, summary: r.summary, template: listingMatching(r.filters) })),
        };
      }
      case "POST /api/sandbox/listings": {
        const template = ListingTemplate.parse(await readJson(req));
        return { listing: needSandbox().control.createListing(template) };
      }
      // Live shapes (docs/live-service.md): a listing with odd field types, one no client can read, and a
      // buy order made on the website (an expression, no item name).
      case "POST /api/sandbox/listings/odd": {
        const template = ListingTemplate.parse(await readJson(req));
        return { listing: needSandbox().control.createOddListing(template) };
      }
      case "POST /api/sandbox/listings/unreadable": {
        const template = ListingTemplate.parse(await readJson(req));
        return { listing: needSandbox().control.createUnreadableListing(template) };
      }
      case "POST /api/sandbox/website-orders": {
        const body = WebsiteOrderBody.parse(await readJson(req));
        const demo = demoOf(humanUser(body.user));
        if (!demo) throw new HttpFailure(404, "this user has no sandbox account");
        return {
          order: needSandbox().control.createWebsiteBuyOrder({
            platformId: demo.platformId,
            marketHashName: body.marketHashName,
            maxPrice: body.maxPrice,
            quantity: body.quantity,
          }),
        };
      }
      case "POST /api/sandbox/rival-orders": {
        const b = RivalOrderBody.parse(await readJson(req));
        return {
          order: needSandbox().control.createRivalBuyOrder({
            marketHashName: b.marketHashName,
            maxPrice: b.maxPrice,
            ...(b.minFloat === undefined ? {} : { minFloat: b.minFloat }),
            ...(b.maxFloat === undefined ? {} : { maxFloat: b.maxFloat }),
          }),
        };
      }
      case "POST /api/sandbox/bids": {
        const body = BidBody.parse(await readJson(req));
        return { bid: needSandbox().control.placeCompetingBid(body.listingId, body.maxPrice) };
      }
      case "POST /api/sandbox/sales": {
        const body = SaleBody.parse(await readJson(req));
        const demo = demoOf(humanUser(body.user));
        if (!demo) throw new HttpFailure(404, "this user has no sandbox account");
        return { trade: needSandbox().control.createSaleForSeller(demo.platformId) };
      }
      // The item's sender reverses a verified trade: rollback entries on both sides (reversal alerts).
      case "POST /api/sandbox/reversals": {
        const body = ReversalBody.parse(await readJson(req));
        return { trade: needSandbox().control.reverseTrade(body.tradeId, "reversed from the playground") };
      }
      case "POST /api/sandbox/clock": {
        const body = ClockBody.parse(await readJson(req));
        return { now: needSandbox().control.advanceClock(body.ms) };
      }
      case "POST /api/sandbox/faults": {
        const body = FaultBody.parse(await readJson(req));
        const { id } = needSandbox().control.injectFault({ path: body.path, ...FAULT_KINDS[body.kind] });
        faults.push({ id, path: body.path, kind: body.kind });
        return { faults };
      }
      case "DELETE /api/sandbox/faults":
        needSandbox().control.clearFaults();
        faults.length = 0;
        return { faults };
      case "POST /api/sandbox/drift": {
        const body = DriftBody.parse(await readJson(req));
        const control = needSandbox().control;
        return { drift: control.setDrift(withDrift(control.drift(), body.kind)) };
      }
      case "DELETE /api/sandbox/drift":
        needSandbox().control.clearDrift();
        return { drift: needSandbox().control.drift() };
      default:
        throw new HttpFailure(404, "not found");
    }
  };
}
