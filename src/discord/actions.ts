// Custom-id actions, one table per feature: the render that draws a button and the command module
// that handles it both import the feature's table, so a name is written once. A button is often
// drawn by one feature and handled by another (the listing view's Buy belongs to /buy); the table
// is the handler's. The registry refuses an action registered twice at start-up.
//
// Buttons on delivered DMs and old messages carry these names for ever: never rename one
// (test/discord/actions.test.ts pins every name).

/** /buy (commands/buy.ts). */
export const BUY_ACTIONS = {
  /** Starts the confirmation flow from listing views and alerts; subject: listing id. */
  start: "buy",
  /** Buys at the quoted price; subject: listing id and price. */
  confirm: "buy.confirm",
  cancel: "buy.cancel",
} as const;

/** /bid (commands/bid.ts). */
export const BID_ACTIONS = {
  /** Opens the ceiling form (Bid, Raise bid) from listing views, alerts and bid replies; subject: listing id. */
  open: "alert.bid",
  /** The ceiling form; subject: listing id. */
  form: "bid.set",
} as const;

/** /offer (commands/offer.ts). */
export const OFFER_ACTIONS = {
  /** Opens the price form from listing views; subject: listing id. */
  open: "offer.open",
  /** The price form; subject: listing id. */
  form: "offer.set",
  page: "offer.page",
} as const;

/** /watchlist, the marketplace's watchlist (commands/watchlist.ts). */
export const WATCHLIST_ACTIONS = {
  /** Watch and Unwatch on listing views; subject: listing id. */
  add: "wl.add",
  remove: "wl.remove",
  /** Subject: pager token and page. */
  page: "wl.page",
} as const;

/** /listing (commands/listing.ts); subject: listing id. */
export const LISTING_ACTIONS = {
  similar: "lst.similar",
  /** Bid history of an auction. */
  bids: "lst.bids",
} as const;

/** /search (commands/search.ts). */
export const SEARCH_ACTIONS = {
  /** Subject: pager token and page. */
  page: "srch.page",
  /** The select menu opening one listing (values: listing ids) under any list of listings. */
  open: "srch.open",
} as const;

/** /stall (commands/stall.ts); subject: pager token and page. */
export const STALL_ACTIONS = { page: "stall.page" } as const;

/** /sell (commands/sell.ts); subject: pager token and page. */
export const SELL_ACTIONS = { page: "sell.page" } as const;

/** /trades (commands/trades.ts); subject: trade id unless said. */
export const TRADE_ACTIONS = {
  /** Accept on trade alerts, auto-accept DMs and trade views. */
  accept: "alert.accept",
  /** Asks to confirm, then cancels (trade alerts and trade views). */
  cancel: "alert.cancel",
  acceptAll: "trade.acceptall",
  cancelYes: "trade.cancelyes",
  keep: "trade.keep",
  page: "trade.page",
  /** The select menu opening one trade. */
  open: "trade.open",
} as const;

/** /watch, watch rules (commands/watch.ts and commands/watch/). */
export const WATCH_ACTIONS = {
  /** "Watch similar" on listing views and alerts proposes a rule like the listing; subject: listing id. */
  similar: "watch.like",
  /** Saves the proposed rule; subject: its draft id. */
  similarSave: "watch.like.save",
  similarAdjust: "watch.like.adjust",
  /** The form adjusting the proposed rule; subject: its draft id. */
  similarForm: "watch.like.form",
  /** Arms a rule (snipe mode) after its confirmation; subject: its draft id. */
  arm: "watch.arm",
  armCancel: "watch.armno",
  /** Disarm on auto-buy DMs; subject: rule id. */
  disarm: "watch.disarm",
} as const;

/** /buyorder (commands/buyorder.ts and commands/buyorder/). */
export const BUY_ORDER_ACTIONS = {
  /** Confirmation of a new order or an edit; subject: draft id. */
  create: "bo.create",
  edit: "bo.edit",
  dismiss: "bo.dismiss",
  page: "bo.page",
  pick: "bo.pick",
  editForm: "bo.editform",
  save: "bo.save",
  cancel: "bo.cancel",
} as const;

/** Buy-order and listing guards (commands/buyorder/guard.ts). */
export const GUARD_ACTIONS = {
  /** Turn off guard, on guard digest DMs; subject: guard id. */
  off: "guard.off",
} as const;

/** /alerts (commands/alerts.ts). */
export const ALERT_ACTIONS = {
  /** View on listing, outbid and auto-buy alerts; subject: listing id. */
  view: "alert.view",
} as const;

/** /account (commands/account.ts and commands/account/). */
export const ACCOUNT_ACTIONS = {
  /** The key form. */
  linkForm: "acct.link",
  check: "acct.check",
  deleteConfirm: "acct.del.yes",
  deleteCancel: "acct.del.no",
  /** Subject: page and transaction type. */
  transactionsPage: "acct.txpage",
} as const;

/** /automation (commands/automation.ts). */
export const AUTOMATION_ACTIONS = {
  stop: "auto.stop",
  stopConfirmed: "auto.stopyes",
  refresh: "auto.refresh",
} as const;

/** /portfolio (commands/portfolio.ts); subject: period and page. */
export const PORTFOLIO_ACTIONS = { page: "pf.page" } as const;
