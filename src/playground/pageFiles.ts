// What the page server sends as files: the page itself (web/, a fixed list of files) and the uploads
// attached to messages, each with headers that keep bot and user content from running as code.
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import type { StoredMessage } from "./discord/index.ts";
import { HttpFailure } from "./pageHttp.ts";

const WEB_DIR = new URL("./web/", import.meta.url);
const STATIC_FILES: Readonly<Record<string, string>> = {
  "/": "index.html",
  "/index.html": "index.html",
  "/app.js": "app.js",
  "/api.js": "api.js",
  "/state.js": "state.js",
  "/render.js": "render.js",
  "/dom.js": "dom.js",
  "/icons.js": "icons.js",
  "/messageComponents.js": "messageComponents.js",
  "/markdown.js": "markdown.js",
  "/composer.js": "composer.js",
  "/components.js": "components.js",
  "/connection.js": "connection.js",
  "/modal.js": "modal.js",
  "/optionInput.js": "optionInput.js",
  "/placement.js": "placement.js",
  "/popup.js": "popup.js",
  "/scroll.js": "scroll.js",
  "/slashCommands.js": "slashCommands.js",
  "/panel/panel.js": "panel/panel.js",
  "/panel/rivals.js": "panel/rivals.js",
  "/panel/install.js": "panel/install.js",
  "/panel/inventory.js": "panel/inventory.js",
  "/panel/panelParts.js": "panel/panelParts.js",
  "/panel/driftControls.js": "panel/driftControls.js",
  "/style.css": "style.css",
};
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
/** The page runs only its own scripts and styles; bot and user text can never become code. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Serves one of the page's files when `pathname` names one (GET only); false when it does not. */
export async function servePageFile(
  res: ServerResponse,
  pathname: string,
  method: string | undefined,
): Promise<boolean> {
  const file = STATIC_FILES[pathname];
  if (!file || method !== "GET") return false;
  const ext = file.slice(file.lastIndexOf(".") + 1);
  const body = await readFile(new URL(file, WEB_DIR));
  res.writeHead(200, {
    "content-type": CONTENT_TYPES[ext] ?? "application/octet-stream",
    "cache-control": "no-store",
    "content-security-policy": PAGE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  res.end(body);
  return true;
}

/** Serves a message's attachment: images inline, anything else as a download. */
export function serveUpload(res: ServerResponse, message: StoredMessage, attachmentId: string): void {
  const file = message.attachments.find((a) => a.id === attachmentId);
  if (!file) throw new HttpFailure(404, "unknown file");
  const image = file.contentType?.startsWith("image/") === true;
  res.writeHead(200, {
    "content-type": image ? (file.contentType ?? "application/octet-stream") : "application/octet-stream",
    "content-length": String(file.data.length),
    // A bot could upload anything: never let an upload run as a page of this origin.
    "content-security-policy": "default-src 'none'; sandbox",
    "x-content-type-options": "nosniff",
    ...(image ? {} : { "content-disposition": "attachment" }),
  });
  res.end(file.data);
}
