// The playground page server's plumbing: errors that carry a status, the same-origin guard, JSON in and
// out, and the two look-ups most routes start with (a user of the page, a message that user can see).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { SandboxError } from "../sandbox/errors.ts";
import type { DiscordDouble, DoubleUser, StoredMessage } from "./discord/index.ts";
import { isVisibleTo } from "./view.ts";

const MAX_BODY_BYTES = 256 * 1024;

/** A user as the page names one (username or id), and a Discord id. */
export const UserRef = z.string().min(1).max(40);
export const Id = z.string().regex(/^\d{1,25}$/);

export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A human user of the page, by username or id. */
export function findHumanUser(double: DiscordDouble, ref: string): DoubleUser {
  const user = double.users.find((u) => u.username === ref || u.id === ref);
  if (!user) throw new HttpFailure(404, `no user "${ref}" in the playground`);
  return user;
}

/** A message this user may see (so may act on); any other id is "unknown". */
export function findVisibleMessage(double: DiscordDouble, user: DoubleUser, id: string): StoredMessage {
  const message = double.message(id);
  if (!message || !isVisibleTo(double, message, user)) throw new HttpFailure(404, "unknown message");
  return message;
}

/**
 * Only this machine's browser may drive the bot: a Host other than the loopback name defeats DNS
 * rebinding, and a foreign Origin or a non-JSON body defeats cross-site form posts.
 */
export function checkOrigin(req: IncomingMessage, port: number): void {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? "")) throw new HttpFailure(403, "unexpected Host header");
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) {
    throw new HttpFailure(403, "cross-origin requests are refused");
  }
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && method !== "DELETE") {
    if (!req.headers["content-type"]?.startsWith("application/json")) {
      throw new HttpFailure(415, "send JSON");
    }
  }
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpFailure(413, "body too large");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text === "" ? {} : (JSON.parse(text) as unknown);
  } catch {
    throw new HttpFailure(400, "the body is not JSON");
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(text);
}

/** Maps what went wrong to a status and a message the page can show. */
export function failureOf(error: unknown): [number, string] {
  if (error instanceof HttpFailure) return [error.status, error.message];
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return [400, issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "invalid request"];
  }
  if (error instanceof SandboxError) return [error.status >= 500 ? 502 : 400, error.message];
  // The double's user helpers throw plain errors for what Discord's client would not let a user send.
  if (error instanceof Error) return [400, error.message];
  return [500, "internal error"];
}
