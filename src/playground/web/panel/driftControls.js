// The Faults card's contract drift: make the sandbox answer as a service changed without notice
// (a renamed item field, prices as dollar strings, a route gone, the reset header in milliseconds),
// then watch the bot's /healthz and `npm run doctor` name it.
import { button, field, select } from "./panelParts.js";
import { el } from "../render.js";

export const DRIFT_KINDS = [
  ["rename", "Rename item.market_hash_name to name"],
  ["money", 'Send prices as dollar strings ("12.34")'],
  ["route", "Remove GET /history/{name}/sales"],
  ["reset", "Send X-RateLimit-Reset in milliseconds"],
];

/** A drift as the card lists it: one line per change the sandbox makes. */
export function driftLines(drift) {
  const lines = [];
  for (const [from, to] of Object.entries(drift.renameFields ?? {}))
    lines.push(`Field ${from} renamed to ${to}`);
  for (const [name, as] of Object.entries(drift.retypeFields ?? {}))
    lines.push(`Field ${name} sent as ${as}`);
  for (const route of drift.dropRoutes ?? []) lines.push(`Route ${route} removed`);
  if (drift.resetUnit !== undefined) lines.push(`Reset header in ${drift.resetUnit}`);
  return lines;
}

/** The drift controls, appended to the Faults card; `show` is called with the sandbox state's drift. */
export function driftControls(ctx, act, say) {
  const kind = select("drift", DRIFT_KINDS);
  const list = el("ul", "panel-drift");
  const show = (drift) => {
    const lines = driftLines(drift ?? {});
    list.replaceChildren(...lines.map((line) => el("li", "", line)));
    if (lines.length === 0) list.append(el("li", "muted", "No drift: answers match what the bot reads."));
  };
  const apply = button("Apply drift", "btn btn-danger");
  apply.addEventListener("click", () =>
    act(async () => {
      const { drift } = await ctx.api("/api/sandbox/drift", { method: "POST", body: { kind: kind.value } });
      show(drift);
      say("Drift applied: the bot's /healthz and `npm run doctor` now name it.");
    }),
  );
  const clear = button("Clear drift");
  clear.addEventListener("click", () =>
    act(async () => {
      const { drift } = await ctx.api("/api/sandbox/drift", { method: "DELETE" });
      show(drift);
      say("Drift cleared.");
    }),
  );
  const row = el("div", "panel-row");
  row.append(apply, clear);
  return {
    nodes: [el("h4", "panel-card-subtitle", "Contract drift"), field("Change", kind), row, list],
    show,
  };
}
