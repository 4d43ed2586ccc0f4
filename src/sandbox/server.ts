// The HTTP front of the sandbox: CORS, rate limits, faults, auth and error bodies around both routers.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { ErrorCode, SandboxError } from "./errors.ts";
import type { DriftBook } from "./drift.ts";
import type { FaultBook } from "./faults.ts";
import type { Reply, RequestContext, Router } from "./http.ts";
import type { AddressLimiter, RateLimiter } from "./rateLimit.ts";
import type { Store, UserRec } from "./state/index.ts";
import type { StatsBook } from "./stats.ts";

export const API_PREFIX = "/api/v1";
export const CONTROL_PREFIX = "/_control";
const MAX_BODY = 1 << 20;

const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers":
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag",
};

export interface ServerDeps {
  store: Store;
  api: Router<UserRec>;
  control: Router<never>;
  limiter: RateLimiter;
  /** The per-address budget, when the sandbox keeps one. */
  addressLimiter?: AddressLimiter;
  faults: FaultBook;
  /** Contract drift asked for through the control API: applied to every API answer. */
  drift: DriftBook;
  stats: StatsBook;
  logger: Logger;
}

/** Everything started for one request that close() must end: hung answers and latency timers. */
export interface Pending {
  hung: Set<ServerResponse>;
  timers: Set<NodeJS.Timeout>;
}

function errorReply(e: unknown, logger: Logger): Reply {
  if (e instanceof SandboxError) return { status: e.status, body: { code: e.code, message: e.message } };
  if (e instanceof Error && e.name === "ZodError") {
    return { status: 400, body: { code: ErrorCode.badRequest, message: e.message } };
  }
  logger.error({ err: e }, "sandbox handler failed");
  return { status: 500, body: { code: ErrorCode.internal, message: "internal sandbox error" } };
}

function send(res: ServerResponse, reply: Reply, extra: Record<string, string>): void {
  const headers: Record<string, string | number> = { ...CORS, ...extra, ...reply.headers };
  if (reply.body === undefined || reply.status === 304) {
    headers["Content-Length"] = 0;
    res.writeHead(reply.status, headers).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers["Content-Type"] = "application/json; charset=utf-8";
  headers["Content-Length"] = Buffer.byteLength(text);
  res.writeHead(reply.status, headers).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new SandboxError(413, ErrorCode.badRequest, "body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SandboxError(400, ErrorCode.badRequest, "body is not valid JSON");
  }
}

/** A write's body as the journal keeps it: parsed JSON, or the text itself when it is not JSON. */
function journalBody(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function createHandler(deps: ServerDeps, pending: Pending) {
  const { store, logger } = deps;

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        pending.timers.delete(t);
        resolve();
      }, ms);
      pending.timers.add(t);
    });

  async function api(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: string) {
    const arrivedAt = Date.now();
    let template = "unknown";
    let rate: Record<string, string> = {};
    let reply: Reply;
    try {
      store.tick();
      const m = deps.api.match(method, path);
      if (m && m !== "method") template = m.route.template;
      const key = headerValue(req.headers.authorization);
      const keyUser = key === undefined ? undefined : store.usersByKey.get(key);
      const user = keyUser && !keyUser.revoked ? keyUser : undefined;
      const identity = user ? `k:${user.apiKey}` : `a:${req.socket.remoteAddress ?? "?"}`;
      const decision = deps.limiter.take(identity, `${method} ${template}`, store.realNow());
      rate = decision.headers;
      const addressWait = deps.addressLimiter?.take(req.socket.remoteAddress ?? "?", store.realNow());
      if (addressWait !== undefined) {
        reply = {
          status: 429,
          body: { code: ErrorCode.rateLimited, message: "too many requests from this address" },
          headers: { "Retry-After": String(addressWait) },
        };
      } else if (!decision.allowed) {
        reply = {
          status: 429,
          body: {
            code: ErrorCode.rateLimited,
            message: "rate limit exceeded; retry after the Retry-After delay",
          },
          headers: { "Retry-After": String(decision.retryAfterSeconds) },
        };
      } else {
        const fault = deps.faults.take(method, path);
        if (fault) {
          const f = fault.spec;
          logger.debug({ method, path, kind: f.kind }, "injected fault");
          if (f.kind === "hang") {
            pending.hung.add(res);
            res.on("close", () => pending.hung.delete(res));
            deps.stats.record(`${method} ${template}`, 0);
            return;
          }
          if (f.kind === "malformed") {
            deps.stats.record(`${method} ${template}`, 200);
            const text = '{"data": [{"id": "9007199254740993", "price": ';
            res.writeHead(200, {
              ...CORS,
              ...rate,
              "Content-Type": "application/json",
              "Content-Length": text.length,
            });
            res.end(text);
            return;
          }
          if (f.kind === "rate_limit") {
            const after = f.retryAfterSeconds ?? 1;
            rate = deps.limiter.exhausted(`${method} ${template}`, store.realNow(), after);
            reply = {
              status: 429,
              body: { code: ErrorCode.rateLimited, message: "rate limit exceeded (injected)" },
              headers: { "Retry-After": String(after) },
            };
            finish(res, method, template, reply, rate);
            return;
          }
          if (f.kind === "status") {
            const status = f.status ?? 500;
            reply = {
              status,
              body: { code: ErrorCode.internal, message: `injected fault: status ${status}` },
            };
            if (f.retryAfterSeconds !== undefined)
              reply.headers = { "Retry-After": String(f.retryAfterSeconds) };
            finish(res, method, template, reply, rate);
            return;
          }
          await delay(f.ms ?? 1000);
          store.tick();
        }
        reply = await route(req, method, path, query, m, user, key, arrivedAt);
      }
    } catch (e) {
      reply = errorReply(e, logger);
    }
    finish(res, method, template, reply, rate);
  }

  /** GET routes the live service answers without a key. */
  const KEYLESS_READS: ReadonlySet<string> = new Set(["/history/{market_hash_name}/graph"]);

  async function route(
    req: IncomingMessage,
    method: string,
    path: string,
    query: string,
    m: ReturnType<Router<UserRec>["match"]>,
    user: UserRec | undefined,
    key: string | undefined,
    arrivedAt: number,
  ): Promise<Reply> {
    const raw = await readBody(req);
    if (method !== "GET" && m !== undefined && m !== "method")
      deps.stats.noteWrite({
        arrivedAt,
        route: `${method} ${m.route.template}`,
        path,
        key,
        body: journalBody(raw),
      });
    if (m === undefined)
      throw new SandboxError(404, ErrorCode.notFound, `no route for ${method} ${API_PREFIX}${path}`);
    if (m === "method")
      throw new SandboxError(405, ErrorCode.badRequest, `${method} is not allowed on ${path}`);
    if (m.route.auth && !user) {
      throw new SandboxError(
        401,
        ErrorCode.unauthorized,
        key === undefined
          ? "missing API key: send it in the Authorization header (the key itself, no prefix)"
          : "invalid or revoked API key (send the key itself, with no Bearer prefix)",
      );
    }
    // Live, keyless reads are refused even where the spec calls them public (docs/live-service.md); only the
    // daily price graph stays open.
    if (
      !m.route.auth &&
      !user &&
      key === undefined &&
      method === "GET" &&
      !KEYLESS_READS.has(m.route.template)
    ) {
      throw new SandboxError(
        403,
        ErrorCode.forbidden,
        "an API key is required: send it in the Authorization header (the key itself, no prefix)",
      );
    }
    if (m.error) throw m.error;
    if (deps.drift.drops(method, m.route.template)) {
      throw new SandboxError(404, ErrorCode.notFound, `no route for ${method} ${API_PREFIX}${path}`);
    }
    const ctx: RequestContext<UserRec> = {
      method,
      path,
      params: m.params,
      query: new URLSearchParams(query),
      body: parseJson(raw),
      headers: req.headers,
      user,
    };
    return m.route.handler(ctx);
  }

  function finish(
    res: ServerResponse,
    method: string,
    template: string,
    reply: Reply,
    rate: Record<string, string>,
  ) {
    deps.stats.record(`${method} ${template}`, reply.status);
    const drifted =
      reply.status >= 200 && reply.status < 300 && reply.body !== undefined
        ? { ...reply, body: deps.drift.body(reply.body) }
        : reply;
    if (!res.destroyed) send(res, drifted, deps.drift.headers(rate, store.realNow()));
  }

  async function controlRequest(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    query: string,
  ) {
    let reply: Reply;
    try {
      const raw = await readBody(req);
      const m = deps.control.match(method, path === "" ? "/" : path);
      if (m === undefined)
        throw new SandboxError(404, ErrorCode.notFound, `no control route ${method} ${path}`);
      if (m === "method")
        throw new SandboxError(405, ErrorCode.badRequest, `${method} is not allowed on ${path}`);
      if (m.error) throw m.error;
      store.tick();
      reply = m.route.handler({
        method,
        path,
        params: m.params,
        query: new URLSearchParams(query),
        body: parseJson(raw),
        headers: req.headers,
        user: undefined,
      });
    } catch (e) {
      reply = errorReply(e, logger);
    }
    if (!res.destroyed) send(res, reply, {});
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const method = (req.method ?? "GET").toUpperCase();
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? "" : url.slice(q + 1);
    if (method === "OPTIONS") {
      res
        .writeHead(204, {
          ...CORS,
          "Access-Control-Allow-Methods": "GET, POST, PATCH, DELETE, OPTIONS",
          "Access-Control-Allow-Headers": "Authorization, Content-Type, If-None-Match",
          "Access-Control-Max-Age": "600",
        })
        .end();
      return;
    }
    let work: Promise<void>;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
      work = api(req, res, method, path.slice(API_PREFIX.length) || "/", query);
    } else if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      work = controlRequest(req, res, method, path.slice(CONTROL_PREFIX.length), query);
    } else {
      send(
        res,
        {
          status: 404,
          body: {
            code: ErrorCode.notFound,
            message: `not found: ${path}; the API lives under ${API_PREFIX}`,
          },
        },
        {},
      );
      return;
    }
    work.catch((e: unknown) => {
      logger.error({ err: e }, "sandbox request failed");
      if (!res.headersSent)
        send(res, { status: 500, body: { code: ErrorCode.internal, message: "internal sandbox error" } }, {});
    });
  };
}
