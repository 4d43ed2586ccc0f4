// The sandbox panel's inventory card: the user's items with their asset ids, for /sell list.
import { el } from "../render.js";

const SHOWN = 12;

export function createInventoryCard(say) {
  const section = el("section", "panel-card");
  section.id = "sandbox-inventory";
  const list = el("ul", "panel-list");
  section.append(
    el("h3", "panel-card-title", "My inventory"),
    el("div", "panel-hint", "Click an id to copy it for /sell list asset:…"),
    list,
  );
  const show = (assets) => {
    // The README's well-known ids (31337…) first: shorter ids sort before the seeded ones.
    const sorted = [...(assets ?? [])].sort(
      (a, b) => a.asset_id.length - b.asset_id.length || a.asset_id.localeCompare(b.asset_id),
    );
    const rows = sorted.slice(0, SHOWN).map((a) => {
      const id = el("code", "panel-key", a.asset_id);
      id.title = "Copy this asset id";
      id.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(a.asset_id);
          say(`Asset id ${a.asset_id} copied.`);
        } catch {
          getSelection()?.selectAllChildren(id);
          say("Press Ctrl+C to copy the selected asset id.");
        }
      });
      const row = el("li", "");
      row.append(id, el("span", "", ` ${a.market_hash_name}`));
      return row;
    });
    if (rows.length === 0) rows.push(el("li", "muted", "Nothing in this inventory."));
    const more = sorted.length - SHOWN;
    if (more > 0) rows.push(el("li", "muted", `and ${more} more`));
    list.replaceChildren(...rows);
  };
  return { node: section, show };
}
