// The page's calls to its server: JSON in and out, and the offline banner when nothing answers.
import { setOnline } from "./connection.js";

/** Said wherever a request fails because the playground process is gone (stopped or restarting). */
const OFFLINE = "The bot is offline: the page reconnects on its own when it is back.";

export async function api(path, { method = "GET", body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // fetch rejects only when no answer came at all: nothing listens on the port.
    setOnline(false);
    throw new Error(OFFLINE);
  }
  // An answer came, so the bot is reachable; the event stream catches up on its own.
  setOnline(true);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `${response.status} ${response.statusText}`);
  return data;
}
