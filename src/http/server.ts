// The operations HTTP server: GET /healthz (200 or 503 with every check) and GET /metrics (Prometheus text).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../log.ts";
import { listenOn } from "../util/listen.ts";
import { runChecks, type HealthCheck } from "./health.ts";

export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port; the chosen one is in `port`. */
  readonly port: number;
  readonly logger: Logger;
  readonly checks: Readonly<Record<string, HealthCheck>>;
  readonly metrics: { render(): Promise<{ contentType: string; body: string }> };
  /** Bound of each health check. */
  readonly checkTimeoutMs?: number;
}

export interface HttpServer {
  /** http://host:port */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets requests in progress finish briefly, then cuts keep-alive sockets. Idempotent. */
  close(): Promise<void>;
}

const CLOSE_GRACE_MS = 1_000;

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const log = opts.logger.child({ module: "http" });

  const healthz = async (res: ServerResponse, head: boolean) => {
    const report = await runChecks(opts.checks, opts.checkTimeoutMs);
    if (!report.ok) {
      const failing = Object.entries(report.checks).flatMap(([name, r]) => (r.ok ? [] : [name]));
      log.warn({ failing, checks: report.checks }, "health check failing");
    }
    const degraded = Object.values(report.checks).some((r) => r["degraded"] === true);
    const body = { status: report.ok ? (degraded ? "degraded" : "ok") : "fail", checks: report.checks };
    reply(res, report.ok ? 200 : 503, "application/json; charset=utf-8", JSON.stringify(body), head);
  };

  const metrics = async (res: ServerResponse, head: boolean) => {
    const { contentType, body } = await opts.metrics.render();
    reply(res, 200, contentType, body, head);
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const { pathname } = new URL(req.url ?? "/", "http://localhost");
    const handler = pathname === "/healthz" ? healthz : pathname === "/metrics" ? metrics : undefined;
    if (handler === undefined) {
      reply(res, 404, "text/plain; charset=utf-8", "not found\n", req.method === "HEAD");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      reply(res, 405, "text/plain; charset=utf-8", "method not allowed\n", false);
      return;
    }
    await handler(res, req.method === "HEAD");
  };

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, "operations endpoint failed");
      if (!res.headersSent) reply(res, 500, "text/plain; charset=utf-8", "internal error\n", false);
      else res.destroy();
    });
  });
  // Probes are tiny; a client that dribbles its request is not served.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;

  await listenOn(server, opts.port, opts.host, "HTTP_PORT");
  server.on("error", (err) => log.error({ err }, "operations server error"));
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${port}`;
  log.info({ url }, "health and metrics endpoints listening");

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        // Prometheus keeps its connection open between scrapes: idle sockets would hold close() forever.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

function reply(res: ServerResponse, status: number, contentType: string, body: string, head: boolean): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(head ? undefined : body);
}
