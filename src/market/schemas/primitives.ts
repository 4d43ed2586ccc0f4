// The shared ground of every marketplace schema: ids, cents, loose numbers, the nullish-as-absent
// helper, tolerant lists that drop and count unreadable elements, and the error body (ADR 011).
import { z } from "zod";

export const Id = z.string().regex(/^\d+$/, "must be a numeric id string");
/** Integer cents, >= 0. Strict: a price the user acts on is never guessed from an odd value. */
export const Cents = z.number().int().min(0);
export const Timestamp = z.string().min(1);

const NUMERIC_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A number, or a numeric string ("1.23") as several live clients decode money-like fields. */
export const LooseNumber = z.preprocess(
  (v) => (typeof v === "string" && NUMERIC_TEXT.test(v) ? Number(v) : v),
  z.number().finite(),
);
/** A whole number, or a string of one. */
export const LooseInt = LooseNumber.pipe(z.number().int());
/** Text that some clients see as a number (original_tx: string | number). */
export const LooseString = z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string());
/** A signed number, or a numeric string: for money-like *detail* fields that arrive as strings. */
export const SignedAmount = LooseNumber;

/** Null read as absent: the live service sends null where the spec omits a field. */
export const opt = <T extends z.ZodType>(s: T) => s.nullish().transform((v) => v ?? undefined);

/** One element a tolerant list could not read: dropped, counted, described for one log line. */
export interface DroppedElement {
  readonly what: string;
  readonly index: number;
  /** Where the element broke the schema, e.g. "item.market_hash_name"; never a value. */
  readonly path: string;
}

/** The element `what` at `index` that did not parse: where its first issue lies, never a value. */
export function droppedElement(what: string, index: number, error: z.ZodError): DroppedElement {
  const first = error.issues[0];
  return { what, index, path: first ? first.path.map(String).join(".") || "(root)" : "" };
}

// Parsing is synchronous, so one module-level sink scoped by collectDropped() is safe.
let droppedSink: DroppedElement[] | undefined;

/** Runs a parse and returns what tolerant lists dropped during it. */
export function collectDropped<T>(parse: () => T): { value: T; dropped: DroppedElement[] } {
  const outer = droppedSink;
  const dropped: DroppedElement[] = [];
  droppedSink = dropped;
  try {
    return { value: parse(), dropped };
  } finally {
    droppedSink = outer;
    outer?.push(...dropped);
  }
}

/**
 * A list read element by element: an element that does not parse is left out (and reported to
 * collectDropped) instead of failing the whole answer. Used for every list the service returns.
 */
export function tolerantArray<T extends z.ZodType>(element: T, what: string) {
  return z.array(z.unknown()).transform((items) =>
    readTolerantly(
      element,
      what,
      items.map((item, index) => ({ item, index })),
    ),
  );
}

/**
 * tolerantArray's reading of some elements of a list, each under its index in the list: those
 * that do not parse are left out and reported to collectDropped (ListingPlaces reads a page's
 * listings this way, only the ones asked for).
 */
export function readTolerantly<T extends z.ZodType>(
  element: T,
  what: string,
  items: readonly { item: unknown; index: number }[],
): z.output<T>[] {
  const out: z.output<T>[] = [];
  for (const { item, index } of items) {
    const parsed = element.safeParse(item);
    if (parsed.success) out.push(parsed.data);
    else droppedSink?.push(droppedElement(what, index, parsed.error));
  }
  return out;
}

/** An optional nested object that must not take its parent down: unreadable reads as absent. */
export function lenient<T extends z.ZodType>(schema: T, what: string) {
  return z
    .unknown()
    .optional()
    .transform((value): z.output<T> | undefined => {
      if (value === null || value === undefined) return undefined;
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      droppedSink?.push(droppedElement(what, 0, parsed.error));
      return undefined;
    });
}

/**
 * An amount the service writes as integer cents that came in another form: a string, a fraction, a
 * decimal point. Its unit may have changed (dollars?), so it is never guessed: it is neither shown
 * nor summed, and the reader says the amount could not be read. `seen` is a shape, never the value.
 */
export interface UnreadableAmount {
  readonly unreadable: true;
  readonly seen: "a string" | "a fractional number" | "another type";
}

export function isUnreadableAmount(v: unknown): v is UnreadableAmount {
  return typeof v === "object" && v !== null && (v as { unreadable?: unknown }).unreadable === true;
}

/**
 * Signed integer cents (the ledger's balance_offset and pending_offset), absent when null or
 * missing. Anything but a whole JSON number reads as an UnreadableAmount, reported to
 * collectDropped as `what` so that the client logs and counts it.
 */
export function signedCents(what: string) {
  return z
    .unknown()
    .optional()
    .transform((v): number | UnreadableAmount | undefined => {
      if (v === null || v === undefined) return undefined;
      if (typeof v === "number" && Number.isSafeInteger(v)) return v;
      droppedSink?.push({ what, index: 0, path: "(root)" });
      const seen =
        typeof v === "string" ? "a string" : typeof v === "number" ? "a fractional number" : "another type";
      return { unreadable: true, seen };
    });
}

/** Integer cents >= 0 that must not take their answer down: unreadable ones read as absent, reported. */
export function lenientCents(what: string) {
  return z
    .unknown()
    .optional()
    .transform((v): number | undefined => {
      if (v === null || v === undefined) return undefined;
      if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
      droppedSink?.push({ what, index: 0, path: "(root)" });
      return undefined;
    });
}

export const ErrorBody = z.object({ code: opt(LooseNumber), message: opt(z.string()) });
