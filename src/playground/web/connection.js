// The page's live connection (server-sent events) and whether the playground is reachable at all.
// The browser reconnects an event stream on its own (`retry:`); a stream refused outright is retried
// here. A reconnect may meet a restarted bot, so the caller is told and fetches every view again.

/** How soon to try again when the stream was refused outright (the browser retries the rest). */
const RETRY_MS = 2_000;

/** Shows or hides the "bot is offline" banner; the body's `offline` class styles the rest. */
export function setOnline(online) {
  const banner = document.getElementById("offline-banner");
  if (banner) banner.hidden = online;
  document.body.classList.toggle("offline", !online);
}

/**
 * @param {string} url the event stream
 * @param {Record<string, (data: any) => void>} handlers by event name, with parsed data
 * @param {() => void} onReconnect called on every open after the first
 * @returns {{ opened: Promise<void>, close(): void }} `opened` resolves on the first open
 */
export function openEvents(url, handlers, onReconnect) {
  let events;
  let retry;
  let closed = false;
  let first = true;
  let resolveOpened;
  const opened = new Promise((resolve) => {
    resolveOpened = resolve;
  });
  const connect = () => {
    events = new EventSource(url);
    events.addEventListener("open", () => {
      setOnline(true);
      if (first) resolveOpened();
      else onReconnect();
      first = false;
    });
    events.addEventListener("error", () => {
      setOnline(false);
      if (events.readyState === EventSource.CLOSED && !closed) {
        clearTimeout(retry);
        retry = setTimeout(connect, RETRY_MS);
      }
    });
    for (const [name, handle] of Object.entries(handlers)) {
      events.addEventListener(name, (event) => handle(JSON.parse(event.data)));
    }
  };
  connect();
  return {
    opened,
    close() {
      closed = true;
      clearTimeout(retry);
      events.close();
    },
  };
}
