// A tiny real HTTP server for market client tests: answers scripted replies per route and records
// every request it saw (with its arrival time), so tests assert on what actually reached the wire.
import { createServer } from "node:http";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const API_PREFIX = "/api/v1";

export interface RecordedRequest {
  method: string;
  /** Path below the API prefix, without the query: "/listings/12". */
  path: string;
  /** Path exactly as received, prefix and query included. */
  rawUrl: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request's headers arrived. */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (takes precedence over json). */
  text?: string;
  /** Answer only after this many milliseconds. */
  delayMs?: number;
  /** Never answer; the socket stays open until the client gives up or the server closes. */
  hang?: boolean;
  /** Drop the connection without answering, after the request was read. */
  destroy?: boolean;
}

export type Responder = Reply | ((req: RecordedRequest) => Reply);

export interface ScriptedServer {
  /** Ends with /api/v1, like the real service's base address. */
  baseUrl: string;
  /** The origin only, to build other base paths in tests. */
  origin: string;
  requests: RecordedRequest[];
  requestsTo(method: string, path: string): RecordedRequest[];
  /** Replies in order for this route; the last one repeats. */
  on(method: string, path: string, ...responders: Responder[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const routes = new Map<string, { responders: Responder[]; next: number }>();
  const requests: RecordedRequest[] = [];

  const server = createServer((incoming, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://localhost");
      const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname;
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path,
        rawUrl: incoming.url ?? "",
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at,
      };
      requests.push(recorded);
      const route = routes.get(`${recorded.method} ${path}`);
      if (route === undefined) {
        send(res, { status: 418, json: { code: 0, message: `unscripted ${recorded.method} ${path}` } });
        return;
      }
      const responder = route.responders[Math.min(route.next, route.responders.length - 1)];
      route.next += 1;
      if (responder === undefined) throw new Error("route without responders");
      const reply = typeof responder === "function" ? responder(recorded) : responder;
      if (reply.hang === true) return;
      if (reply.destroy === true) {
        incoming.socket.destroy();
        return;
      }
      if (reply.delayMs === undefined) send(res, reply);
      else {
        const timer = setTimeout(() => send(res, reply), reply.delayMs);
        res.on("close", () => clearTimeout(timer));
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    baseUrl: `${origin}${API_PREFIX}`,
    origin,
    requests,
    requestsTo: (method, path) => requests.filter((r) => r.method === method && r.path === path),
    on: (method, path, ...responders) => {
      if (responders.length === 0) throw new Error("on() needs at least one responder");
      routes.set(`${method} ${path}`, { responders, next: 0 });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  const body = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.text === undefined && reply.json !== undefined) headers["content-type"] ??= "application/json";
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

/** Fixtures shaped like the spec's resources, with only the fields the schemas require. */
export const fixtures = {
  listing: (id = "1001", over: Record<string, unknown> = {}) => ({
    id,
    type: "buy_now",
    price: 1250,
    state: "listed",
    item: { market_hash_name: "Blade | Ocean Drift (Field-Tested)", float_value: 0.2 },
    ...over,
  }),
  bid: (id = "501", over: Record<string, unknown> = {}) => ({ id, contract_id: "1001", price: 700, ...over }),
  trade: (id = "9001", over: Record<string, unknown> = {}) => ({
    id,
    state: "queued",
    contract_id: "1001",
    ...over,
  }),
  buyOrder: (id = "77", over: Record<string, unknown> = {}) => ({
    id,
    market_hash_name: "Blade | Ocean Drift (Field-Tested)",
    price: 1000,
    qty: 1,
    ...over,
  }),
  aggregate: (over: Record<string, unknown> = {}) => ({
    market_hash_name: "Blade | Ocean Drift (Field-Tested)",
    price: 900,
    qty: 3,
    ...over,
  }),
  offer: (id = "31", over: Record<string, unknown> = {}) => ({
    id,
    contract_id: "1001",
    price: 1100,
    ...over,
  }),
  transaction: (id = "4001", over: Record<string, unknown> = {}) => ({
    id,
    type: "deposit",
    balance_offset: 500,
    ...over,
  }),
};
