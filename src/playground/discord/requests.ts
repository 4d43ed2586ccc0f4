// The double's HTTP side: records every request, plays injected faults, routes /api/v10 to rest.ts
// and serves attachments; the gateway's WebSocket upgrade is handled in gateway.ts.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { failureResult, parseBody, readRaw, send, type ParsedBody, type RestResult } from "./http.ts";
import type { FaultSpec, RecordedRequest } from "./model.ts";
import type { RestRequest } from "./rest.ts";
import { DiscordApiFailure, rateLimited } from "./validation.ts";
import type { World } from "./world.ts";

/** A fault the tests added, with how many more requests it answers. */
export interface PendingFault {
  readonly spec: FaultSpec;
  left: number;
}

export interface RequestListenerDeps {
  readonly world: World;
  readonly rest: (req: RestRequest) => Promise<RestResult>;
  readonly acceptToken: (token: string) => boolean;
  /** Shared with the double's `faults` helper, which adds and clears them. */
  readonly faults: PendingFault[];
  readonly logger: Logger;
}

export function requestListener(
  deps: RequestListenerDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { world, rest, acceptToken, faults, logger } = deps;
  return (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://double.local");
      const method = req.method ?? "GET";
      if (!url.pathname.startsWith("/api/v10/")) {
        send(res, staticRoute(world, url.pathname));
        return;
      }
      const path = url.pathname
        .slice("/api/v10".length)
        .split("/")
        .map((segment) => safeDecode(segment))
        .join("/");
      const raw = await readRaw(req);
      const auth = req.headers.authorization ?? "";
      let body: ParsedBody = { json: undefined, files: [], raw };
      let result: RestResult;
      let parseFailure: DiscordApiFailure | undefined;
      try {
        body = await parseBody(req.headers["content-type"], raw);
      } catch (error) {
        parseFailure =
          error instanceof DiscordApiFailure ? error : new DiscordApiFailure(400, 50109, "Bad body");
      }
      const recorded: RecordedRequest = {
        method,
        path,
        query: Object.fromEntries(url.searchParams),
        body: body.json,
        rawBody: raw.toString("utf8"),
        files: body.files.map((f) => ({
          name: f.name,
          filename: f.filename,
          size: f.data.length,
          contentType: f.contentType,
        })),
        authorized: auth.startsWith("Bot ") && acceptToken(auth.slice(4)),
        at: Date.now(),
        status: 0,
        fault: false,
      };
      world.recordRequest(recorded);
      const fault = takeFault(faults, method, path);
      try {
        if (fault) {
          recorded.fault = true;
          result = faultResult(fault);
        } else if (parseFailure) {
          throw parseFailure;
        } else {
          result = await rest({
            method,
            path,
            query: url.searchParams,
            body,
            authorized: recorded.authorized,
          });
        }
      } catch (error) {
        if (error instanceof DiscordApiFailure) {
          result = failureResult(error);
        } else {
          logger.error({ err: error, method, path }, "discord double failed on a request");
          result = { status: 500, body: { message: "500: Internal Server Error", code: 0 } };
        }
      }
      recorded.status = result.status;
      send(res, result);
      world.finishRequest(recorded);
    })().catch((error: unknown) => {
      logger.error({ err: error }, "discord double could not answer");
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
}

function takeFault(faults: PendingFault[], method: string, path: string): FaultSpec | undefined {
  const index = faults.findIndex(
    (f) =>
      f.left > 0 &&
      (f.spec.method === undefined || f.spec.method.toUpperCase() === method) &&
      (typeof f.spec.path === "string" ? path.includes(f.spec.path) : f.spec.path.test(path)),
  );
  const fault = faults[index];
  if (!fault) return undefined;
  fault.left -= 1;
  if (fault.left <= 0) faults.splice(index, 1);
  return fault.spec;
}

function faultResult(spec: FaultSpec): RestResult {
  if (spec.status === 429) return failureResult(rateLimited(spec.retryAfter ?? 0.05));
  const defaults: Record<number, [number, string]> = {
    400: [50035, "Invalid Form Body"],
    403: [50013, "Missing Permissions"],
    404: [10003, "Unknown Channel"],
    500: [0, "500: Internal Server Error"],
    502: [0, "502: Bad Gateway"],
    503: [0, "503: Service Unavailable"],
  };
  const [code, message] = defaults[spec.status] ?? [0, "error"];
  return { status: spec.status, body: { message: spec.message ?? message, code: spec.code ?? code } };
}

function staticRoute(world: World, pathname: string): RestResult {
  const attachment = /^\/attachments\/(\d+)\/(\d+)\/[^/]+$/.exec(pathname);
  if (attachment) {
    const message = world
      .messagesIn(attachment[1] ?? "")
      .find((m) => m.attachments.some((a) => a.id === attachment[2]));
    const file = message?.attachments.find((a) => a.id === attachment[2]);
    if (file) {
      return {
        status: 200,
        body: file.data,
        headers: { "content-type": file.contentType ?? "application/octet-stream" },
      };
    }
  }
  if (pathname === "/") {
    return { status: 200, body: { service: "local discord double", api: "/api/v10", gateway: "/gateway" } };
  }
  return { status: 404, body: { message: "404: Not Found", code: 0 } };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
