// The sandbox panel's building blocks: labelled fields, buttons and cards, and the faults it offers.
import { el } from "../render.js";

export const FAULT_ROUTES = [
  ["/listings", "New-listing feed and search (GET /listings)"],
  ["/listings/*", "One listing (GET /listings/{id})"],
  ["/listings/buy", "Buying (POST /listings/buy)"],
  ["/listings/*/bid", "Bidding (POST /listings/{id}/bid)"],
  ["/me/trades", "Trades (GET /me/trades)"],
  ["**", "Every route"],
];

/** A fault as the panel lists it: what goes wrong, and on which route ("5xx: service unavailable on every route"). */
export function faultLabel(fault) {
  const kind = FAULT_KINDS.find(([k]) => k === fault.kind)?.[1] ?? fault.kind;
  const route = FAULT_ROUTES.find(([path]) => path === fault.path)?.[1];
  return `${kind} on ${route === undefined ? fault.path : route[0].toLowerCase() + route.slice(1)}`;
}

export const FAULT_KINDS = [
  ["5xx", "5xx: service unavailable"],
  ["429", "429: rate limited"],
  ["latency", "Latency: 3 s (slow, but answers)"],
  ["hang", "Hang: never answers (the bot gives up after its 10 s timeout)"],
];

export function field(labelText, input, hint) {
  const wrap = el("label", "panel-field");
  wrap.append(el("span", "panel-label", labelText), input);
  if (hint) wrap.append(el("span", "panel-hint", hint));
  return wrap;
}

export function input(name, placeholder, value = "") {
  const node = el("input", "panel-input");
  node.name = name;
  node.placeholder = placeholder;
  node.value = value;
  node.autocomplete = "off";
  return node;
}

export function select(name, pairs) {
  const node = el("select", "panel-input");
  node.name = name;
  for (const [value, label] of pairs) node.append(new Option(label, value));
  return node;
}

export function button(text, className = "btn btn-secondary") {
  const node = el("button", className, text);
  node.type = "button";
  return node;
}

export function card(title, ...children) {
  const section = el("section", "panel-card");
  section.append(el("h3", "panel-card-title", title), ...children);
  return section;
}
