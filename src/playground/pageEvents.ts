// The page's live events (Server-Sent Events on /api/events): each open page hears the messages its
// user may see, deletions, and "commands changed"; a comment line every 15 s keeps an idle stream alive.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DiscordDouble, DoubleUser, StoredMessage } from "./discord/index.ts";
import { isVisibleTo, messageView } from "./view.ts";

const SSE_PING_MS = 15_000;

interface SseClient {
  readonly res: ServerResponse;
  readonly user: DoubleUser;
}

export interface PageEvents {
  /** Turns this response into an event stream for the user. */
  open(req: IncomingMessage, res: ServerResponse, user: DoubleUser): void;
  /** Ends every stream and stops listening to the double. */
  close(): void;
}

export function pageEvents(double: DiscordDouble): PageEvents {
  const clients = new Set<SseClient>();

  const open = (req: IncomingMessage, res: ServerResponse, user: DoubleUser) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    res.write("retry: 1000\n\n");
    const client: SseClient = { res, user };
    clients.add(client);
    req.on("close", () => clients.delete(client));
  };

  const push = (client: SseClient, event: string, data: unknown) => {
    client.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  const onMessage = (message: StoredMessage) => {
    // After this tick: the interaction record learns which message is its reply only after the create event.
    setImmediate(() => {
      const current = double.message(message.id) ?? message;
      for (const client of clients) {
        if (isVisibleTo(double, current, client.user)) {
          push(client, "message", { message: messageView(double, current) });
        } else if (current.deleted) {
          push(client, "delete", { id: current.id, channelId: current.channelId });
        }
      }
    });
  };
  const onCommands = () => {
    for (const client of clients) push(client, "commands", {});
  };
  double.on("message", onMessage);
  double.on("commandsRegistered", onCommands);
  const ping = setInterval(() => {
    for (const client of clients) client.res.write(": ping\n\n");
  }, SSE_PING_MS);
  ping.unref();

  return {
    open,
    close() {
      clearInterval(ping);
      double.off("message", onMessage);
      double.off("commandsRegistered", onCommands);
      for (const client of clients) client.res.end();
      clients.clear();
    },
  };
}
