// Scale-out test helper: a recording HTTP relay in front of one marketplace, so requests of several bot
// processes reach the same sandbox while each one's traffic stays attributable to the process that sent it.
import { Agent, createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface RelayedCall {
  /** Which relay entrance the request came through (one per bot process). */
  readonly via: string;
  readonly method: string;
  /** Below the marketplace's API prefix, without the query: "/listings", "/me/trades". */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The Authorization header as sent (the API key), or undefined. */
  readonly key: string | undefined;
  /** Date.now() when the request arrived. */
  readonly at: number;
  /** The marketplace's answer; 0 while in flight or when it could not be reached. */
  status: number;
}

export interface MarketRelay {
  /** The MARKET_BASE_URL a process uses to be recorded as `via`. */
  baseUrlFor(via: string): string;
  readonly calls: readonly RelayedCall[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host"]);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase())));
}

/**
 * Relays `http://relay/<via>/<api prefix>/...` to `targetBaseUrl` (e.g. the sandbox's
 * http://127.0.0.1:PORT/api/v1) unchanged, headers and bodies included, and records each call.
 */
export async function startMarketRelay(targetBaseUrl: string): Promise<MarketRelay> {
  const target = new URL(targetBaseUrl);
  const prefix = target.pathname.replace(/\/+$/, "");
  const agent = new Agent({ keepAlive: true });
  const calls: RelayedCall[] = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://relay.local");
    const [, via = "", ...rest] = url.pathname.split("/");
    const upstreamPath = `/${rest.join("/")}`;
    const call: RelayedCall = {
      via,
      method: req.method ?? "GET",
      path: upstreamPath.startsWith(`${prefix}/`) ? upstreamPath.slice(prefix.length) : upstreamPath,
      query: url.searchParams,
      key: typeof req.headers.authorization === "string" ? req.headers.authorization : undefined,
      at: Date.now(),
      status: 0,
    };
    calls.push(call);
    const upstream = request(
      {
        agent,
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: call.method,
        path: `${upstreamPath}${url.search}`,
        headers: { ...forwardable(req.headers), host: target.host },
      },
      (answer) => {
        call.status = answer.statusCode ?? 0;
        res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end('{"code":10,"message":"relay could not reach the marketplace"}');
    });
    req.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrlFor: (via) => `http://127.0.0.1:${port}/${encodeURIComponent(via)}${prefix}`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
