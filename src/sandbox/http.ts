// Small HTTP helpers for the sandbox: a path-template router, query and body parsing, replies.
import type { IncomingHttpHeaders } from "node:http";
import { z } from "zod";
import { badRequest, type SandboxError } from "./errors.ts";

export interface Reply {
  status: number;
  /** Serialized as JSON unless undefined (an empty body). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext<U> {
  method: string;
  /** Path after the mount point, e.g. "/listings/123". */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The authenticated caller, when the request carried a valid key. */
  user: U | undefined;
}

export interface Route<U> {
  method: string;
  /** e.g. "/listings/{id}/bids"; used for stats and rate-limit buckets. */
  template: string;
  auth: boolean;
  handler: (ctx: RequestContext<U>) => Reply;
}

interface Compiled<U> extends Route<U> {
  segments: string[];
}

export interface Match<U> {
  route: Route<U>;
  params: Record<string, string>;
  /** A malformed path parameter: the route is known (for stats and limits) but the request is a 400. */
  error: SandboxError | undefined;
}

/** Path params that name a resource id must be numeric strings. */
const ID_PARAM = /(^id$|_id$)/;
const NUMERIC = /^\d+$/;

export class Router<U> {
  private readonly routes: Compiled<U>[] = [];

  add(method: string, template: string, auth: boolean, handler: (ctx: RequestContext<U>) => Reply): this {
    this.routes.push({ method, template, auth, handler, segments: template.split("/").slice(1) });
    return this;
  }

  /**
   * Literal segments win over parameters ("/listings/bulk-list" over "/listings/{id}"), whatever the
   * registration order. Returns "method" when the path exists under another method only.
   */
  match(method: string, path: string): Match<U> | "method" | undefined {
    const parts = path.split("/").slice(1);
    let best: { route: Compiled<U>; literals: number } | undefined;
    let otherMethod = false;
    for (const r of this.routes) {
      if (r.segments.length !== parts.length) continue;
      let literals = 0;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = r.segments[i] as string;
        if (seg.startsWith("{")) continue;
        if (seg !== parts[i]) {
          ok = false;
          break;
        }
        literals++;
      }
      if (!ok) continue;
      if (r.method !== method) {
        otherMethod = true;
        continue;
      }
      if (!best || literals > best.literals) best = { route: r, literals };
    }
    if (!best) return otherMethod ? "method" : undefined;
    const params: Record<string, string> = {};
    let error: SandboxError | undefined;
    best.route.segments.forEach((seg, i) => {
      if (!seg.startsWith("{")) return;
      const name = seg.slice(1, -1);
      let value: string;
      try {
        value = decodeURIComponent(parts[i] as string);
      } catch {
        error ??= badRequest(`invalid ${name} in path`);
        return;
      }
      if (ID_PARAM.test(name) && !NUMERIC.test(value))
        error ??= badRequest(`${name} must be a numeric string`);
      params[name] = value;
    });
    return { route: best.route, params, error };
  }

  all(): readonly Route<U>[] {
    return this.routes;
  }
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply =>
  headers ? { status: 200, body, headers } : { status: 200, body };

function single(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw badRequest(`${name} given more than once`);
  const v = all[0];
  return v === undefined || v === "" ? undefined : v;
}

export function qString(query: URLSearchParams, name: string): string | undefined {
  return single(query, name);
}

export function qInt(
  query: URLSearchParams,
  name: string,
  opts: { min?: number; max?: number } = {},
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`${name} must be an integer`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw badRequest(`${name} is out of range`);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${name} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(`${name} must be at most ${opts.max}`);
  return n;
}

export function qNumber(
  query: URLSearchParams,
  name: string,
  opts: { min?: number; max?: number } = {},
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw) || !Number.isFinite(n)) {
    throw badRequest(`${name} must be a number`);
  }
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${name} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(`${name} must be at most ${opts.max}`);
  return n;
}

export function qEnum<T extends string>(
  query: URLSearchParams,
  name: string,
  values: readonly T[],
): T | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!(values as readonly string[]).includes(raw))
    throw badRequest(`${name} must be one of ${values.join(", ")}`);
  return raw as T;
}

/** Page size: the endpoint's default when absent; limits above the cap are clamped (spec: not shown). */
export function qLimit(query: URLSearchParams, def: number, cap = 100): number {
  return Math.min(qInt(query, "limit", { min: 1 }) ?? def, cap);
}

export function qPage(query: URLSearchParams): number {
  return qInt(query, "page", { min: 0 }) ?? 0;
}

/** Validates a JSON body; the 400 message names each offending field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const problems = r.error.issues.map(
      (i) => `${i.path.length > 0 ? i.path.join(".") : "body"}: ${i.message}`,
    );
    throw badRequest(`invalid body: ${problems.join("; ")}`);
  }
  return r.data;
}

/** Money in a body: integer cents, never negative. */
export const MoneyField = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const IdField = z.string().regex(NUMERIC, "must be a numeric string");
