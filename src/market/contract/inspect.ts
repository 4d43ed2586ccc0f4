// Compares one decoded JSON answer with the route's contract: fields missing, of another type, or
// unknown, each named by its path ("data[].item.market_hash_name") with an anonymised example of
// what was seen instead (the shape of a value, never the value).
import type { FieldRule, FieldType, MoneyAction, ObjectContract, RouteContract } from "./rules.ts";

export type DriftKind = "missing" | "type" | "unknown" | "unreadable" | "status";

export interface DriftFinding {
  readonly kind: DriftKind;
  /** Field path, e.g. "data[].price"; for status drift, "(status)"; for headers, "header:x-ratelimit-reset". */
  readonly field: string;
  /** What the bot expects there, e.g. "integer cents". */
  readonly expected?: string;
  /** An anonymised example of what came instead: a type and a masked shape, or the field names beside. */
  readonly seen?: string;
  /** Money actions a changed amount here must hold. */
  readonly money?: readonly MoneyAction[];
}

export interface Inspection {
  readonly findings: DriftFinding[];
  /** Field paths that were actually checked (objects were there to look at): drift on them that is not in findings is over. */
  readonly checked: ReadonlySet<string>;
}

/** Below this many objects, a field that is only "usually" there says nothing by its absence. */
export const USUALLY_SAMPLE = 5;

/**
 * `broad`: the answer is a sample of the whole market (a search without item filters), where a
 * field that is only "usually" there must show up somewhere. Anywhere else (one item's similar
 * listings, a search for stickers) its absence says nothing, so it is not checked.
 */
export function inspectBody(
  contract: RouteContract,
  body: unknown,
  opts: { broad?: boolean } = {},
): Inspection {
  const findings: DriftFinding[] = [];
  const checked = new Set<string>();
  const root = contract.root === "page" && Array.isArray(body) ? { data: body } : body;
  if (contract.root === "list" ? !Array.isArray(root) : !isObject(root)) {
    findings.push({
      kind: "type",
      field: "(root)",
      expected: contract.root === "list" ? "a list" : "an object",
      seen: shapeOf(root),
    });
    return { findings, checked };
  }
  const broad = opts.broad ?? false;
  for (const object of contract.objects) {
    inspectObjects(object, objectsAt(root, object.at), broad, findings, checked);
  }
  return { findings, checked };
}

function inspectObjects(
  contract: ObjectContract,
  objects: readonly Record<string, unknown>[],
  broad: boolean,
  findings: DriftFinding[],
  checked: Set<string>,
): void {
  if (objects.length === 0) return;
  const prefix = contract.at === "" ? "" : `${contract.at}.`;
  checked.add(contract.at === "" ? "(root)" : contract.at);
  for (const [name, rule] of Object.entries(contract.fields)) {
    const field = `${prefix}${name}`;
    const present = objects.filter((o) => o[name] !== undefined && o[name] !== null);
    const sampleLargeEnough = rule.need !== "usually" || (broad && objects.length >= USUALLY_SAMPLE);
    if (sampleLargeEnough || present.length > 0) checked.add(field);
    // One odd element among good ones is the live service's usual noise (read around, and counted
    // as unreadable); a contract change shows in most of them.
    const missing =
      (rule.need === "always" && mostly(objects.length - present.length, objects.length)) ||
      (rule.need === "usually" && sampleLargeEnough && present.length === 0);
    if (missing) {
      const without = objects.find((o) => o[name] === undefined || o[name] === null) ?? {};
      findings.push({
        kind: "missing",
        field,
        expected: describe(rule),
        seen: instead(contract, rule, without),
        ...moneyOf(rule),
      });
    }
    const wrong = present.filter((o) => !matches(rule.type, o[name]));
    const odd = wrong[0];
    if (odd !== undefined && mostly(wrong.length, present.length)) {
      findings.push({
        kind: "type",
        field,
        expected: describe(rule),
        seen: mostCommon(wrong.map((o) => shapeOf(o[name]))),
        ...moneyOf(rule),
      });
    }
  }
  const known = new Set(contract.known);
  const unknown = new Map<string, unknown>();
  for (const o of objects)
    for (const [k, v] of Object.entries(o)) if (!known.has(k) && !unknown.has(k)) unknown.set(k, v);
  for (const [name, value] of unknown)
    findings.push({ kind: "unknown", field: `${prefix}${name}`, seen: shapeOf(value) });
}

function mostCommon(shapes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const shape of shapes) counts.set(shape, (counts.get(shape) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
}

/** More than half: a one-element answer counts, one odd trade in two or listing in fifty does not. */
function mostly(count: number, of: number): boolean {
  return count * 2 > of;
}

/** Beside a missing field: the unknown fields of the same type (a rename, likely), else the names present. */
function instead(contract: ObjectContract, rule: FieldRule, object: Record<string, unknown>): string {
  const known = new Set(contract.known);
  const candidates = Object.entries(object)
    .filter(([k, v]) => !known.has(k) && v !== null && matches(rule.type, v))
    .map(([k]) => k);
  if (candidates.length > 0) return `renamed? unknown field(s) of that type: ${candidates.sort().join(", ")}`;
  const names = Object.keys(object).sort();
  const shown = names.slice(0, 12).join(", ");
  return `fields there: ${shown === "" ? "(none)" : shown}${names.length > 12 ? `, … (${names.length} in all)` : ""}`;
}

function moneyOf(rule: FieldRule): { money?: readonly MoneyAction[] } {
  return rule.money === undefined ? {} : { money: rule.money };
}

/** Every object at a path such as "data[].item": lists are walked, absent steps yield nothing. */
export function objectsAt(root: unknown, at: string): Record<string, unknown>[] {
  let current: unknown[] = [root];
  if (at === "") return current.filter(isObject);
  for (const step of at.split(".")) {
    const list = step.endsWith("[]");
    const name = list ? step.slice(0, -2) : step;
    const next: unknown[] = [];
    for (const value of current) {
      const here = name === "" ? value : isObject(value) ? value[name] : undefined;
      if (list) {
        if (Array.isArray(here)) next.push(...here);
      } else if (here !== undefined && here !== null) next.push(here);
    }
    current = next;
  }
  return current.filter(isObject);
}

const NUMERIC_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function matches(type: FieldType, value: unknown): boolean {
  switch (type) {
    case "id":
      return typeof value === "string" && /^\d+$/.test(value);
    case "cents":
      return typeof value === "number" && Number.isInteger(value) && value >= 0;
    case "signedCents":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return (
        (typeof value === "number" && Number.isFinite(value)) ||
        (typeof value === "string" && NUMERIC_TEXT.test(value))
      );
    case "int":
      return (
        (typeof value === "number" && Number.isInteger(value)) ||
        (typeof value === "string" && NUMERIC_TEXT.test(value) && Number.isInteger(Number(value)))
      );
    case "string":
    case "timestamp":
      return typeof value === "string" && (type === "string" || value !== "");
    case "boolean":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "object":
      return isObject(value);
  }
}

const EXPECTED: Record<FieldType, string> = {
  id: "a numeric id string",
  cents: "integer cents",
  signedCents: "signed integer cents",
  number: "a number",
  int: "a whole number",
  string: "a string",
  timestamp: "a timestamp string",
  boolean: "a boolean",
  list: "a list",
  object: "an object",
};

function describe(rule: FieldRule): string {
  return EXPECTED[rule.type];
}

/**
 * A value's type with its characters masked (digits to 9, letters to x, long text cut): enough to
 * tell "12.34" from 1234 or a date, never the value itself. Objects and lists show their size only.
 */
export function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `list(${value.length})`;
  if (isObject(value)) return `object{${Object.keys(value).length} fields}`;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return `number ${mask(String(value))} (fractional)`;
    return `number ${mask(String(value))}`;
  }
  if (typeof value === "string") {
    const masked = mask(value.length > 12 ? `${value.slice(0, 12)}…` : value);
    return `string "${masked}"`;
  }
  return typeof value;
}

function mask(text: string): string {
  return text.replace(/\d/g, "9").replace(/[A-Za-z]/g, "x");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
