// Contract drift on demand: the sandbox changes its answers the way the live service might without
// notice (a field renamed, a type changed, a route gone, the reset header in another unit), so tests
// and newcomers can watch the doctor's report and the bot's /healthz change.
import { z } from "zod";

/** Field paths name object keys from the outside in, lists skipped: "item.market_hash_name", "price". */
const FieldPath = z
  .string()
  .regex(/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/, "a field path such as item.market_hash_name");

export const RETYPES = ["string", "dollars", "fraction"] as const;
export const RESET_UNITS = [
  "epoch-seconds",
  "epoch-milliseconds",
  "seconds-from-now",
  "milliseconds-from-now",
] as const;

export const DriftSpec = z
  .object({
    /** Each key (matched as a path suffix) is sent under the new name. */
    renameFields: z.record(FieldPath, z.string().regex(/^[A-Za-z_]\w*$/)).optional(),
    /**
     * Each key's numbers change type: "string" (1234 → "1234"), "dollars" (cents as a dollar
     * string: 1234 → "12.34"), "fraction" (cents as dollars: 1234 → 12.34).
     */
    retypeFields: z.record(FieldPath, z.enum(RETYPES)).optional(),
    /** Route templates that answer 404 as if removed, e.g. "GET /history/{market_hash_name}/sales". */
    dropRoutes: z
      .array(z.string().regex(/^(GET|POST|PATCH|DELETE) \/\S*$/, "METHOD /path/{template}"))
      .optional(),
    /** X-RateLimit-Reset's unit (the live service: epoch seconds). */
    resetUnit: z.enum(RESET_UNITS).optional(),
  })
  .strict();
export type DriftSpec = z.infer<typeof DriftSpec>;

export class DriftBook {
  private spec: DriftSpec = {};

  set(input: unknown): DriftSpec {
    this.spec = DriftSpec.parse(input);
    return this.current();
  }

  clear(): void {
    this.spec = {};
  }

  current(): DriftSpec {
    return structuredClone(this.spec);
  }

  drops(method: string, template: string): boolean {
    return this.spec.dropRoutes?.includes(`${method} ${template}`) ?? false;
  }

  /** The answer as the drifted service would send it (the stored world is untouched). */
  body(body: unknown): unknown {
    const rename = Object.entries(this.spec.renameFields ?? {}).map(([p, to]) => ({
      path: p.split("."),
      to,
    }));
    const retype = Object.entries(this.spec.retypeFields ?? {}).map(([p, as]) => ({
      path: p.split("."),
      as,
    }));
    if (rename.length === 0 && retype.length === 0) return body;
    const walk = (value: unknown, keys: readonly string[]): unknown => {
      if (Array.isArray(value)) return value.map((v) => walk(v, keys));
      if (typeof value !== "object" || value === null) return value;
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const here = [...keys, key];
        let v = walk(child, here);
        const change = retype.find((r) => endsWith(here, r.path));
        if (change !== undefined) v = retyped(v, change.as);
        const renamed = rename.find((r) => endsWith(here, r.path));
        out[renamed?.to ?? key] = v;
      }
      return out;
    };
    return walk(body, []);
  }

  /** The rate-limit headers with the reset in the drifted unit. */
  headers(headers: Record<string, string>, nowMs: number): Record<string, string> {
    const unit = this.spec.resetUnit;
    const raw = headers["X-RateLimit-Reset"];
    if (unit === undefined || unit === "epoch-seconds" || raw === undefined) return headers;
    const epochSeconds = Number(raw);
    const value =
      unit === "epoch-milliseconds"
        ? epochSeconds * 1000
        : unit === "seconds-from-now"
          ? Math.max(0, Math.ceil(epochSeconds - nowMs / 1000))
          : Math.max(0, Math.ceil(epochSeconds * 1000 - nowMs));
    return { ...headers, "X-RateLimit-Reset": String(value) };
  }
}

function endsWith(keys: readonly string[], suffix: readonly string[]): boolean {
  if (suffix.length > keys.length) return false;
  return suffix.every((s, i) => keys[keys.length - suffix.length + i] === s);
}

function retyped(value: unknown, as: (typeof RETYPES)[number]): unknown {
  if (typeof value !== "number") return value;
  if (as === "string") return String(value);
  if (as === "dollars") return (value / 100).toFixed(2);
  return value / 100;
}
