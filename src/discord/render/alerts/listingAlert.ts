// A listing alert as Discord shows it: the listing's figures once, every rule of the user it matched, inspect and screenshot links.
import type { APIEmbed } from "discord.js";
import { rulesOf } from "../../../outbox/grouping.ts";
import type { ListingAlert } from "../../../outbox/payload.ts";
import { safeUserText } from "../../../input/parse.ts";
import { dealFields } from "../dealFields.ts";
import { embed } from "../embeds.ts";
import { money, relativeTime, truncate } from "../format.ts";
import { itemLinksText } from "../listing.ts";

const name = (text: string) => safeUserText(text, 120);

/** Rules named in an alert before "+N more". */
export const RULES_NAMED = 3;

/** "cheap ember, low float, blue +47 more": the first few rules by name, the rest counted. */
export function ruleNamesText(a: ListingAlert, max = RULES_NAMED, nameLength = 50): string {
  const { named, omitted } = rulesOf(a);
  const shown = named.slice(0, max).map((r) => safeUserText(r.ruleName, nameLength));
  const more = named.length - shown.length + omitted;
  return `${shown.join(", ")}${more > 0 ? ` +${more} more` : ""}`;
}

/** The rule that matched, with its filters; several: their names, the first one's filters. */
function rulesField(a: ListingAlert): { name: string; value: string } {
  const summary = a.ruleSummary === "" ? "—" : a.ruleSummary;
  const { named, omitted } = rulesOf(a);
  if (named.length === 1 && omitted === 0)
    return { name: `Rule: ${truncate(a.ruleName, 200)}`, value: summary };
  return {
    name: truncate(`Rules (${named.length + omitted}): ${ruleNamesText(a)}`, 256),
    value: truncate(`${safeUserText(a.ruleName, 50)}: ${summary}`, 1024),
  };
}

/** One line for the digest and /alerts recent. */
export function listingAlertLine(a: ListingAlert): string {
  const discount = a.discountPercent === undefined ? "" : ` (${a.discountPercent.toFixed(1)}% below ref)`;
  const { named, omitted } = rulesOf(a);
  const rules = named.length + omitted === 1 ? `rule ${name(a.ruleName)}` : `rules ${ruleNamesText(a)}`;
  return `💸 ${name(a.itemName)}: ${money(a.priceCents)}${discount} — ${rules} · listing ${a.listingId}`;
}

export function listingEmbed(a: ListingAlert): APIEmbed {
  const fields: { name: string; value: string; inline?: boolean }[] = [
    {
      name: a.listingType === "auction" ? "Current price" : "Price",
      value: money(a.priceCents),
      inline: true,
    },
  ];
  if (a.referenceCents !== undefined) {
    const d = a.discountPercent;
    const vs = d === undefined ? "" : d >= 0 ? ` (${d.toFixed(1)}% below)` : ` (${(-d).toFixed(1)}% above)`;
    fields.push({ name: "Reference", value: `${money(a.referenceCents)}${vs}`, inline: true });
  }
  if (a.floatValue !== undefined)
    fields.push({ name: "Float", value: a.floatValue.toFixed(6), inline: true });
  if (a.paintSeed !== undefined) fields.push({ name: "Seed", value: String(a.paintSeed), inline: true });
  fields.push(...dealFields(a));
  if (a.stickers.length > 0) {
    fields.push({
      name: "Stickers",
      value: truncate(
        a.stickers
          .map((s) => (s.slot === undefined ? name(s.name) : `${name(s.name)} (slot ${s.slot})`))
          .join("\n"),
        1000,
      ),
    });
  }
  if (a.keychains.length > 0)
    fields.push({ name: "Keychains", value: a.keychains.map((k) => name(k.name)).join("\n") });
  if (a.auction !== undefined) {
    const parts = [];
    if (a.auction.topBidCents !== undefined) parts.push(`top bid ${money(a.auction.topBidCents)}`);
    if (a.auction.minNextBidCents !== undefined)
      parts.push(`next bid from ${money(a.auction.minNextBidCents)}`);
    if (a.auction.expiresAt !== undefined) parts.push(`ends ${relativeTime(new Date(a.auction.expiresAt))}`);
    if (parts.length > 0) fields.push({ name: "Auction", value: parts.join(" · ") });
  }
  fields.push(rulesField(a));
  const links = itemLinksText(a);
  if (links !== undefined) fields.push({ name: "Links", value: links });
  return embed({
    tone: "deal",
    title: truncate(`${a.listingType === "auction" ? "New auction" : "New listing"}: ${a.itemName}`, 256),
    fields,
    ...(a.iconUrl !== undefined && /^https:\/\//.test(a.iconUrl) ? { thumbnailUrl: a.iconUrl } : {}),
    footer: `Listing ${a.listingId}${a.sellerName === undefined ? "" : ` · seller ${truncate(a.sellerName, 60)}`}`,
    ...(a.listedAt === undefined ? {} : { timestamp: new Date(a.listedAt) }),
  });
}
