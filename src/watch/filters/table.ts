// The filter table of docs/architecture.md, made from the registry: one row per filter, in the
// order /watch shows them. `npm run docs:filters` writes it; a test fails when the document differs.
import { RULE_FILTERS } from "./registry.ts";

export const TABLE_START = "<!-- filter table: made by npm run docs:filters from RULE_FILTERS -->";
export const TABLE_END = "<!-- end of filter table -->";

const code = (names: readonly string[]) =>
  names.length === 0 ? "—" : names.map((n) => `\`${n}\``).join(", ");

/** How the matcher finds a filter's rules: by a deal bound, packed fields, or after the index. */
function indexed(f: (typeof RULE_FILTERS)[number]): string {
  if ("deal" in f && f.deal !== undefined && f.deal.length > 0) return "deal bound";
  if ("pack" in f && f.pack !== undefined) return "packed";
  return "after the index";
}

export function filterTable(): string {
  const rows = RULE_FILTERS.map((f) =>
    [
      `\`${f.name}\``,
      f.group,
      code(f.options.map((o) => o.name)),
      code(Object.keys(f.stored)),
      f.narrowing.length > 0 ? "yes" : "no",
      indexed(f),
    ].join(" | "),
  );
  return [
    TABLE_START,
    "",
    "| filter | group | options | stored keys | narrows alone | matcher |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r} |`),
    "",
    TABLE_END,
  ].join("\n");
}

/** The document with its filter table replaced by `table` (between the markers). */
export function withFilterTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error("the document has no filter table markers");
  return doc.slice(0, start) + table + doc.slice(end + TABLE_END.length);
}
