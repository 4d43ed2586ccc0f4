// Links to a listing's item outside the API: the game's inspect link as sent, and the marketplace's screenshot page.
import type { Listing } from "./schemas.ts";

/** Longest link carried into a message (a longer one is not shown). */
const MAX_LINK = 512;

export interface ItemLinks {
  /** The game's inspect link, as the listing carries it (often not http: shown as text). */
  inspectLink?: string;
  /** An https link to the item's screenshot. */
  screenshotUrl?: string;
}

/**
 * The listing's inspect and screenshot links, each when it has one. The API gives a screenshot
 * id only: `screenshotTemplate` (MARKET_SCREENSHOT_URL, "{id}" standing for it) makes it a link;
 * without one, no screenshot link is shown.
 */
export function itemLinksOf(listing: Listing, screenshotTemplate?: string): ItemLinks {
  const links: ItemLinks = {};
  const inspect = listing.item.inspect_link?.trim();
  if (inspect !== undefined && inspect !== "" && inspect.length <= MAX_LINK) links.inspectLink = inspect;
  const id = listing.item.game_screenshot_id?.trim();
  if (id !== undefined && id !== "" && screenshotTemplate !== undefined) {
    const url = screenshotTemplate.replaceAll("{id}", encodeURIComponent(id));
    if (/^https:\/\/\S+$/.test(url) && url.length <= MAX_LINK) links.screenshotUrl = url;
  }
  return links;
}
