// The steps features register with the trade poller, chained: each reads the trade as the one
// before left it, every outcome DM is kept, and any step may replace the ordinary trade alert.
import { describe, expect, it } from "vitest";
import { chainSteps, type TradeStep } from "../../src/accountPollers/tradeSteps.ts";
import type { Trade } from "../../src/market/schemas.ts";
import type { NewAlert } from "../../src/outbox/store.ts";

const trade = (state: string) => ({ id: "900719925474099301", state }) as unknown as Trade;
const alert = (subjectId: string) => ({ subjectId }) as unknown as NewAlert;

describe("trade steps", () => {
  it("GIVEN no step registered WHEN a trade is read THEN it is left as it is, with no DM and the trade alert kept", async () => {
    const t = trade("queued");
    expect(await chainSteps([])(t, "seller")).toEqual({ trade: t, alerts: [], replacesTradeAlert: false });
  });

  it("GIVEN a step that accepts a sale and one after it WHEN a queued sale is read THEN the second sees the accepted trade, both DMs are kept in order, and the trade alert is replaced", async () => {
    const seen: string[] = [];
    const accept: TradeStep = async (t) => ({
      trade: trade("pending"),
      alert: alert(`accepted ${t.state}`),
      replacesTradeAlert: true,
    });
    const watch: TradeStep = async (t) => {
      seen.push(t.state ?? "");
      return { trade: t, alert: alert(`saw ${t.state}`), replacesTradeAlert: false };
    };

    const result = await chainSteps([accept, watch])(trade("queued"), "seller");

    expect(seen).toEqual(["pending"]);
    expect(result.trade.state).toBe("pending");
    expect(result.alerts.map((a) => a.subjectId)).toEqual(["accepted queued", "saw pending"]);
    expect(result.replacesTradeAlert).toBe(true);
  });
});
