// Where a message's select menu opens: downward, unless the chat has no room left below it (the
// last message sits just above the composer), then upward, as Discord's menus do.

/** Sets `upward` on `wrap` when `list` fits better above `trigger` than below, within the chat's box. */
export function placeMenu(wrap, trigger, list) {
  const bounds = (trigger.closest(".messages") ?? document.documentElement).getBoundingClientRect();
  const at = trigger.getBoundingClientRect();
  const below = bounds.bottom - at.bottom;
  const above = at.top - bounds.top;
  const needed = Math.min(list.scrollHeight, list.getBoundingClientRect().height || list.scrollHeight);
  wrap.classList.toggle("upward", below < needed && above > below);
}
