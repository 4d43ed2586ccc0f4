// The marketplace's seller fee, in one place: what a sale at a price leaves the seller, and so
// what a deal really earns (resale at the reference price, or an instant exit to the best buy order).
//
// Neither the spec nor what is known of the live service gives the rate: the ledger only carries
// the fee charged on each sale (`details.fee` as a rate and `details.fee_amount`, both arriving as
// strings; the sandbox charges "0"). So the rate is configuration (SELLER_FEE_PERCENT), with the
// marketplace's usual rate for ordinary sales as the default, and every profit figure the bot
// shows says it is after that fee.
import type { Cents } from "../money.ts";

/** Basis points: 200 = 2%. */
export const DEFAULT_SELLER_FEE_BPS = 200;

export interface FeeModel {
  /** The seller fee in basis points (200 = 2%). */
  readonly sellerFeeBps: number;
  /** The fee the marketplace keeps from a sale at `priceCents`, rounded to the nearest cent. */
  feeOn(priceCents: Cents): Cents;
  /** What a sale at `priceCents` leaves the seller. */
  netOfSale(priceCents: Cents): Cents;
  /**
   * What buying at `costCents` and selling at `saleCents` earns after the fee (negative: a loss).
   */
  profit(costCents: Cents, saleCents: Cents): Cents;
}

export function feeModel(sellerFeeBps: number = DEFAULT_SELLER_FEE_BPS): FeeModel {
  if (!Number.isInteger(sellerFeeBps) || sellerFeeBps < 0 || sellerFeeBps > 10_000) {
    throw new RangeError("the seller fee must be whole basis points from 0 to 10000");
  }
  const feeOn = (price: Cents): Cents => Math.round((price * sellerFeeBps) / 10_000);
  const netOfSale = (price: Cents): Cents => price - feeOn(price);
  return {
    sellerFeeBps,
    feeOn,
    netOfSale,
    profit: (cost, sale) => netOfSale(sale) - cost,
  };
}

/** Percent (one decimal place is enough for people) to basis points, for configuration. */
export function percentToBps(percent: number): number {
  return Math.round(percent * 100);
}

export const DEFAULT_FEES: FeeModel = feeModel();
