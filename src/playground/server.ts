// The playground's web server: behind one same-origin guard, hands each request to its part: the page's
// files (pageFiles.ts), live events (pageEvents.ts), the API over the local Discord (chatApi.ts) and the
// sandbox panel's API (sandboxApi.ts).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { RuleView } from "../watch/rules.ts";
import type { Logger } from "../log.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { listenOn } from "../util/listen.ts";
import { createChatApi } from "./chatApi.ts";
import type { DiscordDouble, DoubleUser } from "./discord/index.ts";
import { pageEvents } from "./pageEvents.ts";
import { servePageFile, serveUpload } from "./pageFiles.ts";
import {
  checkOrigin,
  failureOf,
  findHumanUser,
  findVisibleMessage,
  HttpFailure,
  sendJson,
} from "./pageHttp.ts";
import { createSandboxApi } from "./sandboxApi.ts";

export { FAULT_KINDS } from "./sandboxApi.ts";

export interface PlaygroundServerOptions {
  readonly double: DiscordDouble;
  /** The in-process sandbox; absent when MARKET_BASE_URL points at another marketplace. */
  readonly sandbox: Sandbox | undefined;
  /** The user's watch rules, for "matches my rule" in the panel. */
  readonly rulesOf: (discordUserId: string) => Promise<readonly RuleView[]>;
  readonly logger: Logger;
  /** 0: any free port. */
  readonly port: number;
  readonly host?: string;
}

export interface PlaygroundServer {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startPlaygroundServer(options: PlaygroundServerOptions): Promise<PlaygroundServer> {
  const { double } = options;
  const log = options.logger.child({ module: "playground" });
  const host = options.host ?? "127.0.0.1";
  let port = 0;

  const humanUser = (ref: string): DoubleUser => findHumanUser(double, ref);
  const sandboxApi = createSandboxApi({
    sandbox: options.sandbox,
    rulesOf: options.rulesOf,
    humanUser,
  });
  const chatApi = createChatApi({ double, humanUser, sandbox: options.sandbox !== undefined });

  const api = async (req: IncomingMessage, url: URL): Promise<unknown> => {
    const method = req.method ?? "GET";
    const route = `${method} ${url.pathname}`;
    const q = (name: string) => url.searchParams.get(name) ?? "";
    if (url.pathname === "/api/sandbox" || url.pathname.startsWith("/api/sandbox/")) {
      return sandboxApi(route, req, q);
    }
    return chatApi(route, req, q);
  };

  const events = pageEvents(double);

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://playground.local");
      try {
        checkOrigin(req, port);
        if (await servePageFile(res, url.pathname, req.method)) return;
        if (url.pathname === "/favicon.ico") {
          res.writeHead(204).end();
          return;
        }
        if (url.pathname === "/api/events" && req.method === "GET") {
          events.open(req, res, humanUser(url.searchParams.get("user") ?? ""));
          return;
        }
        if (url.pathname.startsWith("/files/") && req.method === "GET") {
          const user = humanUser(url.searchParams.get("user") ?? "");
          const [messageId = "", attachmentId = ""] = url.pathname.split("/").slice(2);
          serveUpload(res, findVisibleMessage(double, user, messageId), attachmentId);
          return;
        }
        if (url.pathname.startsWith("/api/")) {
          sendJson(res, 200, await api(req, url));
          return;
        }
        throw new HttpFailure(404, "not found");
      } catch (error) {
        const [status, message] = failureOf(error);
        if (status >= 500) log.error({ err: error, path: url.pathname }, "playground request failed");
        else log.debug({ status, reason: message, path: url.pathname }, "playground request refused");
        if (!res.headersSent) sendJson(res, status, { ok: false, error: message });
        else res.end();
      }
    })();
  });

  await listenOn(server, options.port, host, "PLAYGROUND_PORT");
  port = (server.address() as AddressInfo).port;
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  log.debug({ port }, "playground page listening");

  let closed: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        events.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
