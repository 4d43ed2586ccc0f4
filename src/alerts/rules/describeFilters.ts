// The one-line human summary of a watch rule's filters, shown on /watch list and on every alert.
import { formatCents } from "../../money.ts";
import { safeUserText } from "../../input/parse.ts";
import { describeDeal, MAX_TIER_NAME } from "./dealFilters.ts";
import { MAX_ITEM_NAME, type RuleFilters } from "./ruleFilters.ts";

const MAX_SEEDS_SHOWN = 5;

/** A short human line, e.g. "Falcon Rifle | Ember Tide (Pristine) · float 0–0.07 · ≤ $120.00 · ≥ 15% below ref". */
export function describeFilters(filters: RuleFilters): string {
  const parts: string[] = [];
  const f = filters;
  if (f.item !== undefined) parts.push(safeUserText(f.item, MAX_ITEM_NAME));
  if (f.def_index !== undefined) parts.push(`def ${f.def_index}`);
  if (f.paint_index !== undefined) parts.push(`paint ${f.paint_index}`);
  if (f.tier !== undefined && f.paint_seeds !== undefined) {
    const n = f.paint_seeds.length;
    parts.push(`tier "${safeUserText(f.tier, MAX_TIER_NAME)}" (${n} seed${n === 1 ? "" : "s"})`);
  } else if (f.paint_seeds !== undefined) {
    const shown = f.paint_seeds.slice(0, MAX_SEEDS_SHOWN).join(", ");
    const more = f.paint_seeds.length - MAX_SEEDS_SHOWN;
    parts.push(`seed ${shown}${more > 0 ? ` +${more} more` : ""}`);
  }
  if (f.min_float !== undefined && f.max_float !== undefined)
    parts.push(`float ${f.min_float}–${f.max_float}`);
  else if (f.min_float !== undefined) parts.push(`float ≥ ${f.min_float}`);
  else if (f.max_float !== undefined) parts.push(`float ≤ ${f.max_float}`);
  if (f.max_price !== undefined) parts.push(`≤ ${formatCents(f.max_price)}`);
  if (f.min_discount !== undefined) parts.push(`≥ ${f.min_discount}% below ref`);
  if (f.min_ref_qty !== undefined) parts.push(`ref qty ≥ ${f.min_ref_qty}`);
  if (f.type !== undefined) parts.push(f.type === "auction" ? "auctions" : "buy now");
  if (f.category === "normal") parts.push("not statcounter/souvenir");
  else if (f.category === "statcounter" || f.category === "souvenir") parts.push(f.category);
  if (f.stickers !== undefined) {
    parts.push(
      `stickers ${f.stickers.map((s) => (s.slot === undefined ? `${s.id}` : `${s.id} (slot ${s.slot})`)).join(", ")}`,
    );
  }
  if (f.keychains !== undefined) parts.push(`keychains ${f.keychains.join(", ")}`);
  describeDeal(f, parts);
  return parts.join(" · ");
}
