// Profit and loss from the balance ledger, as plain data: every purchase becomes a lot of its item,
// every sale is matched first-in first-out with a lot of the same item bought before it, and a
// sale's profit is what the ledger credited (net of the fee) less that lot's cost. Refunds and
// reversals are dated entries of their own that undo what they undo (closed periods keep their
// figures; the period of the reversal takes the loss). The method is described for users in the
// README ("Portfolio") and in /help.
import type { Cents } from "../money.ts";
import { byLedgerOrder, isReversal, type LedgerEntry } from "./ledgerEntry.ts";

export interface Lot {
  readonly contractId: string;
  readonly item: string;
  readonly costCents: Cents;
  readonly boughtAt: Date | undefined;
}

export type PnlEventKind =
  "sale" | "sale_refunded" | "sale_reversed" | "purchase_reversed" | "fine" | "other_reversal";

/** One dated change of profit and loss. */
export interface PnlEvent {
  readonly at: Date | undefined;
  readonly kind: PnlEventKind;
  readonly item: string;
  readonly contractId: string | undefined;
  /** Profit (negative: loss) in cents; 0 for a sale whose cost is not known. */
  readonly pnlCents: Cents;
  /** What the ledger credited for a sale (negative when one is undone). */
  readonly netCents: Cents;
  readonly feeCents: Cents;
  /** The matched purchase's cost, when known (negative when a sale is undone). */
  readonly costCents: Cents | undefined;
  /** False for a sale of an item the ledger shows no purchase of (its cost is unknown). */
  readonly costKnown: boolean;
}

interface Sale {
  readonly contractId: string;
  readonly item: string;
  readonly netCents: Cents;
  readonly feeCents: Cents;
  readonly lot: Lot | undefined;
  readonly pnlCents: Cents;
  undone: boolean;
}

interface Purchase {
  readonly lot: Lot;
  /** Refunded or reversed before it was sold. */
  undone: boolean;
  soldBy: Sale | undefined;
}

export interface Book {
  readonly events: readonly PnlEvent[];
  /** Purchases still held: bought, not refunded, reversed or sold. */
  readonly open: readonly Lot[];
  readonly purchases: readonly { readonly lot: Lot; readonly undone: boolean }[];
  /** Entries left out because an amount could not be read as integer cents (never guessed). */
  readonly unreadableAmounts: number;
}

/** Label of P&L entries that belong to no item. */
export const NO_ITEM = {
  fines: "Fines",
  other: "Other reversals",
} as const;

/**
 * Builds the book from ledger entries (any order; each entry once). `itemOf` names the item of a
 * listing (contract) id; entries that name none fall back to "listing <id>".
 */
export function buildBook(entries: readonly LedgerEntry[], itemOf: (contractId: string) => string): Book {
  // An amount in another form than integer cents may be in another unit: left out, and counted.
  const ordered = entries.filter((e) => !e.amountUnreadable).sort(byLedgerOrder);
  const openByItem = new Map<string, Lot[]>();
  const purchases = new Map<string, Purchase>();
  const sales = new Map<string, Sale>();
  const events: PnlEvent[] = [];
  const nameOf = (id: string | undefined) => (id === undefined ? NO_ITEM.other : itemOf(id));

  const openLots = (item: string): Lot[] => {
    let lots = openByItem.get(item);
    if (!lots) openByItem.set(item, (lots = []));
    return lots;
  };
  const takeLot = (lot: Lot) => {
    const lots = openLots(lot.item);
    const i = lots.indexOf(lot);
    if (i >= 0) lots.splice(i, 1);
  };
  /** A lot back in stock (its sale undone) takes its place by purchase date again. */
  const returnLot = (lot: Lot) => {
    const lots = openLots(lot.item);
    const at = lot.boughtAt?.getTime() ?? 0;
    const i = lots.findIndex((l) => (l.boughtAt?.getTime() ?? 0) > at);
    lots.splice(i < 0 ? lots.length : i, 0, lot);
  };

  const undoSale = (sale: Sale, e: LedgerEntry, kind: "sale_refunded" | "sale_reversed") => {
    sale.undone = true;
    if (sale.lot) {
      returnLot(sale.lot);
      const p = purchases.get(sale.lot.contractId);
      if (p) p.soldBy = undefined;
    }
    // The platform may take back more (or less) than the sale credited: the difference is a loss.
    const taken = -(e.balanceCents + e.pendingCents);
    const shortfall = kind === "sale_reversed" && sale.lot !== undefined ? sale.netCents - taken : 0;
    events.push({
      at: e.at,
      kind,
      item: sale.item,
      contractId: sale.contractId,
      pnlCents: -sale.pnlCents + shortfall,
      netCents: -sale.netCents,
      feeCents: -sale.feeCents,
      costCents: sale.lot ? -sale.lot.costCents : undefined,
      costKnown: sale.lot !== undefined,
    });
  };

  for (const e of ordered) {
    const id = e.contractId;
    switch (e.type) {
      case "contract_purchased": {
        if (id === undefined || purchases.has(id)) break;
        const lot: Lot = { contractId: id, item: nameOf(id), costCents: -e.balanceCents, boughtAt: e.at };
        purchases.set(id, { lot, undone: false, soldBy: undefined });
        openLots(lot.item).push(lot);
        break;
      }
      case "contract_purchase_refund": {
        const p = id === undefined ? undefined : purchases.get(id);
        if (!p || p.undone || p.soldBy) break;
        p.undone = true;
        takeLot(p.lot);
        break;
      }
      case "contract_sold": {
        if (id === undefined || sales.has(id)) break;
        const item = nameOf(id);
        const at = e.at?.getTime() ?? 0;
        const lot = openLots(item).find((l) => (l.boughtAt?.getTime() ?? 0) <= at);
        if (lot) {
          takeLot(lot);
        }
        // Proceeds wait in the pending balance until the trade is verified; they are the sale's.
        const netCents = e.pendingCents !== 0 ? e.pendingCents : e.balanceCents;
        const sale: Sale = {
          contractId: id,
          item,
          netCents,
          feeCents: e.feeCents,
          lot,
          pnlCents: lot ? netCents - lot.costCents : 0,
          undone: false,
        };
        sales.set(id, sale);
        if (lot) {
          const p = purchases.get(lot.contractId);
          if (p) p.soldBy = sale;
        }
        events.push({
          at: e.at,
          kind: "sale",
          item,
          contractId: id,
          pnlCents: sale.pnlCents,
          netCents,
          feeCents: e.feeCents,
          costCents: lot?.costCents,
          costKnown: lot !== undefined,
        });
        break;
      }
      case "contract_sale_refund": {
        const sale = id === undefined ? undefined : sales.get(id);
        if (sale && !sale.undone) undoSale(sale, e, "sale_refunded");
        break;
      }
      case "fine":
        events.push(chargeEvent(e, "fine", NO_ITEM.fines));
        break;
      case "rollback": {
        if (!isReversal(e)) break;
        const sale = id === undefined ? undefined : sales.get(id);
        const purchase = id === undefined ? undefined : purchases.get(id);
        if (e.balanceCents + e.pendingCents < 0 && sale && !sale.undone) {
          undoSale(sale, e, "sale_reversed");
        } else if (e.balanceCents > 0 && purchase && !purchase.undone && !purchase.soldBy) {
          // The item went back to its seller and the price came back: nothing gained or lost.
          purchase.undone = true;
          takeLot(purchase.lot);
        } else if (e.balanceCents > 0 && purchase?.soldBy) {
          // Refunded for an item already sold on: the refund is profit.
          purchase.undone = true;
          events.push(chargeEvent(e, "purchase_reversed", purchase.lot.item));
        } else {
          events.push(chargeEvent(e, "other_reversal", id === undefined ? NO_ITEM.other : nameOf(id)));
        }
        break;
      }
      // deposit, withdrawal, bid_posted (a hold), trade_verified (proceeds leave pending): cash
      // movements that neither earn nor lose.
      default:
        break;
    }
  }
  return {
    events,
    open: [...openByItem.values()].flat(),
    purchases: [...purchases.values()].map((p) => ({ lot: p.lot, undone: p.undone })),
    unreadableAmounts: entries.length - ordered.length,
  };
}

function chargeEvent(e: LedgerEntry, kind: PnlEventKind, item: string): PnlEvent {
  const amount = e.balanceCents + e.pendingCents;
  return {
    at: e.at,
    kind,
    item,
    contractId: e.contractId,
    pnlCents: amount,
    netCents: 0,
    feeCents: 0,
    costCents: undefined,
    costKnown: true,
  };
}
