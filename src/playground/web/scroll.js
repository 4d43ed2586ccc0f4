// The chat stays pinned to its newest message, as Discord's does, while anything changes its size:
// the composer growing rows for a command, a message gaining rows of buttons, an image loading.
// Scrolling up unpins it; scrolling back to the bottom pins it again.

/** Within this many pixels of the bottom counts as "at the bottom". */
const SLACK_PX = 80;

/** @returns `pin()` for a freshly drawn channel; whether it is pinned shows as `data-pinned`. */
export function keepPinned(container) {
  let pinned = true;
  const distance = () => container.scrollHeight - container.scrollTop - container.clientHeight;
  const mark = () => {
    container.dataset.pinned = String(pinned);
  };
  const stick = () => {
    if (pinned) container.scrollTop = container.scrollHeight;
    mark();
  };
  container.addEventListener("scroll", () => {
    pinned = distance() < SLACK_PX;
    mark();
  });
  // The box itself shrinking (the composer grew) or its content growing (new or redrawn messages).
  new ResizeObserver(stick).observe(container);
  new MutationObserver(stick).observe(container, { childList: true, subtree: true });
  // Images (charts, thumbnails) take their height only once loaded; load events do not bubble.
  container.addEventListener("load", stick, true);
  mark();
  return {
    pin() {
      pinned = true;
      stick();
    },
  };
}
