// The odd and unreadable listing shapes clients report from the live service, made from a normal one.
/**
 * The shapes clients report from the live service (docs/live-service.md, "Items"): an
 * `odd` listing has `sticker_index` as a string, nulls inside `blue_gem` and `fade` and a sticker
 * without `wear`; an `unreadable` one has a price no client could read.
 */
export function withQuirk<L extends object>(listing: L, quirk: "odd" | "unreadable"): L {
  const json = structuredClone(listing) as unknown as Record<string, unknown> & {
    item: Record<string, unknown>;
  };
  if (quirk === "unreadable") {
    json["price"] = "abc";
    return json as unknown as L;
  }
  const item = json.item;
  item["sticker_index"] = String(item["sticker_index"] ?? 0);
  item["blue_gem"] = { playside_blue: 12.5, playside_gold: null, backside_blue: 30.25, backside_gold: null };
  item["fade"] = { percentage: null, rank: null, seed: item["paint_seed"] ?? 0, type: null };
  const stickers = Array.isArray(item["stickers"]) ? (item["stickers"] as Record<string, unknown>[]) : [];
  item["stickers"] =
    stickers.length > 0
      ? stickers.map(({ wear: _wear, ...rest }) => rest)
      : [{ stickerId: 4_021, slot: 0, name: "Sandbox Crest", icon_url: "https://icons.invalid/4021.png" }];
  return json as unknown as L;
}
