// A purchase made directly on the marketplace in a test, and the buyer's trade it opened. The live
// answer to POST /listings/buy names no trade ({ message: "all listings purchased" }), so the trade
// is read from GET /me/trades, as the bot does.
import type { MarketApi } from "../../src/market/client.ts";
import type { Trade } from "../../src/market/schemas.ts";

export async function buyAndFindTrade(api: MarketApi, listingId: string, totalPrice: number): Promise<Trade> {
  await api.buyListings({ contract_ids: [listingId], total_price: totalPrice });
  const mine = await api.getMyTrades({ role: "buyer", limit: 50 });
  const trade = mine.trades.find((t) => (t.contract_id ?? t.contract?.id) === listingId);
  if (trade === undefined) throw new Error(`the purchase of ${listingId} opened no trade of the buyer's`);
  return trade;
}
