// Injected faults: make matching spec requests fail, slow down, hang, answer garbage or be rate limited.
import { z } from "zod";

export const FaultSpec = z.object({
  method: z.string().min(1).optional(),
  /** A glob ("*" within a segment, "**" across segments) or a regex string ("/.../" or "^...") on the path after /api/v1. */
  path: z.string().min(1),
  kind: z.enum(["status", "latency", "hang", "malformed", "rate_limit"]),
  status: z.number().int().min(100).max(599).optional(),
  ms: z.number().int().nonnegative().optional(),
  /** How many requests it applies to; unlimited when absent. */
  times: z.number().int().positive().optional(),
  retryAfterSeconds: z.number().int().nonnegative().optional(),
});
export type FaultSpec = z.input<typeof FaultSpec>;

export interface Fault {
  id: number;
  spec: z.infer<typeof FaultSpec>;
  pattern: RegExp;
  remaining: number;
}

export function compilePattern(path: string): RegExp {
  if (path.length > 1 && path.startsWith("/") && path.endsWith("/") && !path.endsWith("\\/")) {
    return new RegExp(path.slice(1, -1));
  }
  if (path.startsWith("^")) return new RegExp(path);
  let re = "";
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string;
    if (c === "*" && path[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

export class FaultBook {
  private faults: Fault[] = [];
  private nextId = 1;

  add(input: FaultSpec): Fault {
    const spec = FaultSpec.parse(input);
    const fault: Fault = {
      id: this.nextId++,
      spec,
      pattern: compilePattern(spec.path),
      remaining: spec.times ?? Number.POSITIVE_INFINITY,
    };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return [...this.faults];
  }

  /** The first fault matching this request; consumes one use of it. */
  take(method: string, path: string): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const f = this.faults.find(
      (x) => (x.spec.method === undefined || x.spec.method.toUpperCase() === method) && x.pattern.test(path),
    );
    if (!f) return undefined;
    f.remaining -= 1;
    if (f.remaining <= 0) this.faults = this.faults.filter((x) => x !== f);
    return f;
  }
}
