// Custom-id actions shared between command modules: a button rendered by one command is often
// handled by another (the listing view's Buy belongs to /buy). One name per action, registered by
// exactly one module (the registry refuses duplicates at start-up).
export const ACTIONS = {
  // buyStart, bidOpen, tradeAccept and tradeCancel keep the names the alert messages already carry
  // (src/discord/render/alerts.ts ALERT_ACTIONS): buttons on delivered DMs must keep working.
  /** Starts the /buy confirmation flow; subject: listing id. Handled by commands/buy.ts. */
  buyStart: "buy",
  /** Opens the bid modal (Bid, Raise bid); subject: listing id. Handled by commands/bid.ts. */
  bidOpen: "alert.bid",
  /** Opens the offer modal; subject: listing id. Handled by the offer command. */
  offerOpen: "offer.open",
  /** Adds a listing to the marketplace watchlist; subject: listing id. commands/watchlist.ts. */
  watchAdd: "wl.add",
  /** Removes a listing from the marketplace watchlist; subject: listing id. commands/watchlist.ts. */
  watchRemove: "wl.remove",
  /** Pages of /watchlist show; subject: pager token and page. commands/watchlist.ts. */
  watchPage: "wl.page",
  /** Similar listings; subject: listing id. commands/listing.ts. */
  similar: "lst.similar",
  /** Bid history of an auction; subject: listing id. commands/listing.ts. */
  bids: "lst.bids",
  /** Pages of /search; subject: pager token and page. commands/search.ts. */
  searchPage: "srch.page",
  /** Select menu opening one listing (values: listing ids) from any list. commands/search.ts. */
  searchOpen: "srch.open",
  /** Pages of /stall; subject: pager token and page. commands/stall.ts. */
  stallPage: "stall.page",
  /** Trade buttons; subject: trade id. Handled by commands/trades.ts. */
  tradeAccept: "alert.accept",
  /** Asks to confirm, then cancels; subject: trade id. Handled by commands/trades.ts. */
  tradeCancel: "alert.cancel",
  tradeAcceptAll: "trade.acceptall",
  /** Proposes a watch rule like a listing; subject: listing id. Handled by commands/watch.ts. */
  watchSimilar: "watch.like",
  /** Saves the rule "Watch similar" proposed; subject: its draft id. Handled by commands/watch.ts. */
  watchSimilarSave: "watch.like.save",
  /** Disarms an armed rule (snipe mode); subject: rule id. Handled by commands/watch.ts. */
  watchDisarm: "watch.disarm",
  /** Turns a buy-order or listing guard off from its digest DM; subject: guard id. commands/buyorder.ts. */
  guardOff: "guard.off",
} as const;

export type Action = (typeof ACTIONS)[keyof typeof ACTIONS];
