// A pass-through in front of the sandbox that can run one action just before a route's next request
// goes on: the marketplace changes after the bot's last read and before its write, every time,
// with no timing involved. Everything else is forwarded as it is, over real HTTP.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface MarketGate {
  /** Point the bot here instead of the sandbox: same base path. */
  readonly baseUrl: string;
  /** Runs `action` once, right before the next request to `route` ("POST /listings/buy") is forwarded. */
  before(route: string, action: () => unknown): void;
  /** Actions or forwards that failed (a test asserts there are none). */
  readonly failures: unknown[];
  close(): Promise<void>;
}

/** Hop-by-hop and body-framing headers: the forwarder sets its own. */
const DROPPED = new Set(["host", "connection", "content-length", "transfer-encoding", "content-encoding"]);

export async function startMarketGate(target: string): Promise<MarketGate> {
  const upstream = new URL(target);
  const basePath = upstream.pathname.replace(/\/$/, "");
  const actions = new Map<string, () => unknown>();
  const failures: unknown[] = [];

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? "/";
    const route = `${req.method ?? "GET"} ${url.split("?")[0]?.slice(basePath.length) ?? ""}`;
    const action = actions.get(route);
    if (action) {
      actions.delete(route);
      await action();
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || DROPPED.has(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const answer = await fetch(`${upstream.origin}${url}`, {
      method: req.method ?? "GET",
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!DROPPED.has(name)) out[name] = value;
    });
    res.writeHead(answer.status, out).end(body);
  }

  const server = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => {
      failures.push(error);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    before(route, action) {
      actions.set(route, action);
    },
    failures,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
