// Embed fields for a listing alert's deal quality: profit after the seller fee, instant exit, fade, blue gem, float rank, sticker value.
import type { ListingAlert } from "../../outbox/payload.ts";
import { money } from "./format.ts";

export interface EmbedField {
  name: string;
  value: string;
  inline?: boolean;
}

/** A profit with its sign and a true minus sign: "+$12.34", "−$1.20". */
function signedMoney(cents: number): string {
  return money(cents, { sign: true }).replace(/^-/, "−");
}

/** "2%", "2.5%" from basis points. */
function feePercent(bps: number): string {
  return `${Number((bps / 100).toFixed(2))}%`;
}

const pct = (x: number) => `${Number(x.toFixed(1))}%`;

export function dealFields(a: ListingAlert): EmbedField[] {
  const fields: EmbedField[] = [];
  const profit: string[] = [];
  if (a.netResaleCents !== undefined) {
    const share = a.netResalePercent === undefined ? "" : ` (${pct(a.netResalePercent)})`;
    profit.push(`Net at reference: ${signedMoney(a.netResaleCents)}${share}`);
  }
  if (a.exitCents !== undefined && a.exitBuyOrderCents !== undefined) {
    profit.push(`Instant exit: ${signedMoney(a.exitCents)} to a ${money(a.exitBuyOrderCents)} buy order`);
  }
  if (profit.length > 0) {
    // The fee is said once, for both figures.
    const fee = a.sellerFeeBps === undefined ? "" : ` after the ${feePercent(a.sellerFeeBps)} seller fee`;
    fields.push({ name: `Profit${fee}`, value: profit.join("\n") });
  }
  if (a.fade !== undefined) {
    const rank = a.fade.rank === undefined ? "" : ` (rank #${a.fade.rank})`;
    fields.push({ name: "Fade", value: `${pct(a.fade.percent)}${rank}`, inline: true });
  }
  if (a.blueGem !== undefined) {
    const sides = [];
    if (a.blueGem.playside !== undefined) sides.push(`playside ${pct(a.blueGem.playside)}`);
    if (a.blueGem.backside !== undefined) sides.push(`backside ${pct(a.blueGem.backside)}`);
    if (sides.length > 0) fields.push({ name: "Blue gem", value: sides.join(" · "), inline: true });
  }
  if (a.floatRank !== undefined)
    fields.push({ name: "Float rank", value: `#${a.floatRank} lowest`, inline: true });
  if (a.stickerValueCents !== undefined) {
    const share = a.stickerPercent === undefined ? "" : `, ${pct(a.stickerPercent)} of price`;
    fields.push({ name: "Stickers value", value: `${money(a.stickerValueCents)}${share}`, inline: true });
  }
  return fields;
}
