// The sandbox drawer: the user's key, and buttons that make the marketplace do things (list, outbid, sell, time, faults).
import { driftControls } from "./driftControls.js";
import { createInventoryCard } from "./inventory.js";
import { button, card, faultLabel, field, FAULT_KINDS, FAULT_ROUTES, input, select } from "./panelParts.js";
import { el } from "../render.js";
import { rivalsCard } from "./rivals.js";

const dollars = (cents) => `$${(cents / 100).toFixed(2)}`;
const toCents = (text) => {
  const n = Number(String(text).replace(/[$,\s]/g, ""));
  return Number.isFinite(n) && n > 0 ? Math.round(n * 100) : undefined;
};

/** The README's example item; the rest of the names come from the sandbox's catalog (GET /api/sandbox). */
const DEFAULT_ITEM = "Falcon Rifle | Ember Tide (Pristine)";

/**
 * @param {HTMLElement} root the drawer
 * @param {object} ctx api, me(), meName()
 */
export function createPanel(root, ctx) {
  const status = el("div", "panel-status");
  status.setAttribute("role", "status");
  const say = (text, kind = "ok") => {
    status.textContent = text;
    status.className = `panel-status ${kind}`;
  };
  const act = async (work) => {
    try {
      await work();
    } catch (error) {
      say(error.message, "error");
    }
  };

  // ---- account ----
  const accountName = el("span", "");
  const keyCode = el("code", "panel-key");
  keyCode.id = "sandbox-key";
  const copy = button("Copy");
  copy.id = "copy-key";
  const balance = el("div", "panel-line");
  const platform = el("div", "panel-line muted");
  copy.addEventListener("click", async () => {
    const key = keyCode.textContent;
    try {
      await navigator.clipboard.writeText(key);
      say("Key copied: run /account link and paste it into the form.");
    } catch {
      // Without clipboard permission, select the text so Ctrl+C works.
      getSelection()?.selectAllChildren(keyCode);
      say("Press Ctrl+C to copy the selected key.");
    }
  });
  const keyRow = el("div", "panel-key-row");
  keyRow.append(keyCode, copy);
  const accountTitle = el("span", "", "Sandbox account");
  const account = card(
    "",
    keyRow,
    el("div", "panel-hint", "Paste it into /account link's form."),
    balance,
    platform,
  );
  account.querySelector(".panel-card-title").append(accountTitle, el("span", "muted", " · "), accountName);

  // ---- listing ----
  const itemInput = input("item", "Item name", DEFAULT_ITEM);
  const itemList = el("datalist");
  itemList.id = "item-suggestions";
  const showCatalog = (names) => {
    if (itemList.childElementCount === 0) itemList.append(...(names ?? []).map((n) => new Option(n)));
  };
  const inventory = createInventoryCard(say);
  itemInput.setAttribute("list", itemList.id);
  const priceInput = input("price", "12.50", "12.50");
  const floatInput = input("float", "0.0-1.0 (optional)");
  const typeSelect = select("type", [
    ["buy_now", "Buy now"],
    ["auction", "Auction"],
  ]);
  const ruleSelect = select("rule", [["", "Matches my rule…"]]);
  ruleSelect.id = "rule-pick";
  const ruleNote = el("div", "panel-hint");
  let ruleTemplate;
  let ruleTemplates = [];
  const fillFrom = (template) => {
    ruleTemplate = template;
    itemInput.value = template.market_hash_name ?? itemInput.value;
    priceInput.value = (template.price / 100).toFixed(2);
    floatInput.value = template.float_value === undefined ? "" : String(template.float_value);
    typeSelect.value = template.type ?? "buy_now";
    const extras = Object.keys(template).filter(
      (k) => !["market_hash_name", "price", "float_value", "type"].includes(k),
    );
    ruleNote.textContent = extras.length > 0 ? `Also set from the rule: ${extras.join(", ")}.` : "";
  };
  ruleSelect.addEventListener("change", () => {
    const chosen = ruleTemplates[Number(ruleSelect.value)];
    if (chosen) fillFrom(chosen.template);
    ruleSelect.value = "";
  });
  const refreshRules = async () => {
    const { rules } = await ctx.api(`/api/sandbox/rule-listings?user=${encodeURIComponent(ctx.me())}`);
    ruleTemplates = rules;
    ruleSelect.replaceChildren(
      new Option(rules.length > 0 ? "Matches my rule…" : "No watch rules yet (/watch add)", ""),
    );
    rules.forEach((r, i) => ruleSelect.append(new Option(`${r.name} — ${r.summary}`, String(i))));
  };
  ruleSelect.addEventListener("focus", () => act(refreshRules));
  const createButton = button("Create listing", "btn btn-success");
  createButton.id = "create-listing";
  const lastListing = el("div", "panel-line");
  lastListing.id = "last-listing";
  createButton.addEventListener("click", () =>
    act(async () => {
      const price = toCents(priceInput.value);
      if (price === undefined) throw new Error("Price: a dollar amount such as 12.50.");
      const template = {
        ...ruleTemplate,
        market_hash_name: itemInput.value.trim(),
        price,
        type: typeSelect.value,
      };
      const float = floatInput.value.trim();
      if (float !== "") template.float_value = Number(float);
      else delete template.float_value;
      if (template.type === "auction") template.reserve_price = price;
      else delete template.reserve_price;
      const { listing } = await ctx.api("/api/sandbox/listings", { method: "POST", body: template });
      lastListing.textContent = `Listed ${listing.item.market_hash_name} at ${dollars(listing.price)} (listing ${listing.id}).`;
      lastListing.dataset.listingId = listing.id;
      if (listing.type === "auction") bidListing.value = listing.id;
      say("Listing created: watch rules that match it alert within seconds.");
    }),
  );
  // Shapes the live service sends: an odd listing still alerts, an unreadable one is skipped.
  const quirkButton = (label, path, note) => {
    const b = button(label);
    b.addEventListener("click", () =>
      act(async () => {
        const price = toCents(priceInput.value);
        const name = itemInput.value.trim();
        const template = { ...(name ? { market_hash_name: name } : {}), ...(price ? { price } : {}) };
        const { listing } = await ctx.api(path, { method: "POST", body: template });
        lastListing.textContent = `${note} (listing ${listing.id}).`;
        say(note);
      }),
    );
    return b;
  };
  const oddButton = quirkButton(
    "Odd listing",
    "/api/sandbox/listings/odd",
    "Listed with odd field types (a string sticker index, nulls, a sticker without wear): it still alerts",
  );
  oddButton.id = "create-odd-listing";
  const unreadableButton = quirkButton(
    "Unreadable listing",
    "/api/sandbox/listings/unreadable",
    "Listed with a price no client can read: the bot skips it, counts it, and alerts the rest",
  );
  unreadableButton.id = "create-unreadable-listing";
  const quirkRow = el("div", "panel-row");
  quirkRow.append(oddButton, unreadableButton);
  itemInput.addEventListener("input", () => {
    ruleTemplate = undefined;
    ruleNote.textContent = "";
  });
  const listingCard = card(
    "New listing",
    field("Item", itemInput),
    itemList,
    field("Price (USD)", priceInput),
    field("Float", floatInput),
    field("Type", typeSelect),
    ruleSelect,
    ruleNote,
    createButton,
    quirkRow,
    lastListing,
  );

  // ---- a buy order made on the website ----
  const orderButton = button("Website buy order", "btn btn-primary");
  orderButton.id = "create-website-order";
  orderButton.addEventListener("click", () =>
    act(async () => {
      const price = toCents(priceInput.value);
      const name = itemInput.value.trim();
      if (price === undefined) throw new Error("Price: a dollar amount such as 12.50.");
      if (!name) throw new Error("Item: the item the order buys.");
      const { order } = await ctx.api("/api/sandbox/website-orders", {
        method: "POST",
        body: { user: ctx.me(), marketHashName: name, maxPrice: price, quantity: 2 },
      });
      say(`A buy order made on the website (order ${order.id}): see it with /buyorder list.`);
    }),
  );
  const orderCard = card(
    "Website buy order",
    el("div", "panel-hint", "As if made on the marketplace's website: a filter expression and no item name."),
    orderButton,
  );

  // ---- rivals for the guards (/buyorder guard, /sell guard) ----
  const rivalCard = rivalsCard({
    ctx,
    act,
    say,
    card,
    button,
    values: () => ({ item: itemInput.value, price: toCents(priceInput.value), float: floatInput.value }),
  });

  // ---- outbid ----
  const bidListing = input("listing", "Auction listing id");
  const bidMax = input("max", "Their ceiling, e.g. 40.00", "40.00");
  const bidButton = button("Place competing bid", "btn btn-primary");
  bidButton.addEventListener("click", () =>
    act(async () => {
      const maxPrice = toCents(bidMax.value);
      if (!bidListing.value.trim()) throw new Error("Listing: the id of an auction.");
      if (maxPrice === undefined) throw new Error("Ceiling: a dollar amount.");
      const { bid } = await ctx.api("/api/sandbox/bids", {
        method: "POST",
        body: { listingId: bidListing.value.trim(), maxPrice },
      });
      say(`A rival bid (standing at ${dollars(bid.price)}). If you led, an outbid alert follows.`);
    }),
  );
  const bidCard = card(
    "Outbid (rival bidder)",
    field("Listing", bidListing),
    field("Rival's ceiling (USD)", bidMax),
    bidButton,
  );

  // ---- sell ----
  const saleButton = button("Someone buys one of my items", "btn btn-primary");
  saleButton.addEventListener("click", () =>
    act(async () => {
      const { trade } = await ctx.api("/api/sandbox/sales", { method: "POST", body: { user: ctx.me() } });
      say(
        `Sold ${trade.contract?.item?.market_hash_name ?? "an item"}: trade ${trade.id} waits for you to accept.`,
      );
    }),
  );
  const reverseTrade = input("trade", "Verified trade id");
  const reverseButton = button("Reverse this trade", "btn btn-danger");
  reverseButton.addEventListener("click", () =>
    act(async () => {
      if (!/^\d+$/.test(reverseTrade.value.trim())) throw new Error("Trade: the id of a verified trade.");
      const { trade } = await ctx.api("/api/sandbox/reversals", {
        method: "POST",
        body: { tradeId: reverseTrade.value.trim() },
      });
      say(`Trade ${trade.id} reversed: both sides get a rollback in their ledger and a reversal alert.`);
    }),
  );
  const saleCard = card(
    "Sell",
    el("div", "panel-hint", "A buyer takes one of your items: a trade to accept."),
    saleButton,
    el("div", "panel-hint", "Within 7 days of verification the sender can reverse a trade."),
    field("Trade", reverseTrade),
    reverseButton,
  );

  // ---- clock ----
  const clock = el("div", "panel-line");
  const clockRow = el("div", "panel-row");
  for (const [label, ms] of [
    ["+1 h", 3_600_000],
    ["+1 d", 86_400_000],
  ]) {
    const b = button(label);
    b.addEventListener("click", () =>
      act(async () => {
        const { now } = await ctx.api("/api/sandbox/clock", { method: "POST", body: { ms } });
        showClock(now);
        say(`Sandbox clock moved ${label.slice(1)}: expiries and settlements ran.`);
      }),
    );
    clockRow.append(b);
  }
  const showClock = (now) => {
    clock.textContent = `Sandbox time: ${new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(now))}`;
  };
  const clockCard = card("Clock", clock, clockRow);

  // ---- faults ----
  const faultRoute = select("route", FAULT_ROUTES);
  const faultKind = select("kind", FAULT_KINDS);
  const faultList = el("ul", "panel-faults");
  const showFaults = (faults) => {
    faultList.replaceChildren(...faults.map((f) => el("li", "", faultLabel(f))));
    if (faults.length === 0) faultList.append(el("li", "muted", "No faults: the marketplace behaves."));
  };
  const inject = button("Inject fault", "btn btn-danger");
  inject.addEventListener("click", () =>
    act(async () => {
      const { faults } = await ctx.api("/api/sandbox/faults", {
        method: "POST",
        body: { path: faultRoute.value, kind: faultKind.value },
      });
      showFaults(faults);
      say("Fault injected: the bot now meets it on that route.");
    }),
  );
  const clear = button("Clear faults");
  clear.addEventListener("click", () =>
    act(async () => {
      const { faults } = await ctx.api("/api/sandbox/faults", { method: "DELETE" });
      showFaults(faults);
      say("Faults cleared.");
    }),
  );
  const faultRow = el("div", "panel-row");
  faultRow.append(inject, clear);
  const drift = driftControls(ctx, act, say);
  const faultCard = card(
    "Faults",
    field("Route", faultRoute),
    field("Kind", faultKind),
    faultRow,
    faultList,
    ...drift.nodes,
  );

  root.append(
    el("h2", "panel-title", "Sandbox marketplace"),
    el("p", "panel-hint", "Simulated marketplace: no real money or items."),
    status,
    account,
    listingCard,
    orderCard,
    rivalCard,
    bidCard,
    saleCard,
    inventory.node,
    clockCard,
    faultCard,
  );

  const update = async () => {
    const state = await ctx.api(`/api/sandbox?user=${encodeURIComponent(ctx.me())}`);
    accountName.textContent = ctx.meName();
    if (state.account) {
      keyCode.textContent = state.account.apiKey;
      balance.textContent = `Balance ${dollars(state.account.balance)} · pending ${dollars(state.account.pending)}`;
      platform.textContent = `Platform id ${state.account.platformId}`;
    } else {
      keyCode.textContent = "—";
      balance.textContent = "No sandbox account for this user.";
      platform.textContent = "";
    }
    showClock(state.now);
    showFaults(state.faults);
    drift.show(state.drift);
    showCatalog(state.catalog);
    inventory.show(state.inventory);
    await refreshRules();
  };

  return {
    /** For a newly picked user: their key and balance, and a clean form. */
    async refresh() {
      // Nothing typed or made for the previous user stays: their listing, auction id, messages.
      ruleTemplate = undefined;
      ruleNote.textContent = "";
      for (const [node, value] of [
        [itemInput, DEFAULT_ITEM],
        [priceInput, "12.50"],
        [floatInput, ""],
        [typeSelect, "buy_now"],
        [bidListing, ""],
        [bidMax, "40.00"],
      ])
        node.value = value;
      lastListing.textContent = "";
      delete lastListing.dataset.listingId;
      say("", "");
      await update();
    },
    /** After the bot said something: a rule, a purchase or a sale may have changed what is shown. */
    update: () => act(update),
    disable(reason) {
      root.replaceChildren(el("h2", "panel-title", "Sandbox marketplace"), el("p", "panel-hint", reason));
    },
  };
}
