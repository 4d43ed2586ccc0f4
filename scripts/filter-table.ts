// npm run docs:filters: writes the filter table of docs/architecture.md from the registry.
import { readFileSync, writeFileSync } from "node:fs";
import { filterTable, withFilterTable } from "../src/watch/filters/table.ts";

const file = new URL("../docs/architecture.md", import.meta.url);
const doc = readFileSync(file, "utf8");
const next = withFilterTable(doc, filterTable());
if (next !== doc) writeFileSync(file, next);
process.stdout.write(next === doc ? "filter table already up to date\n" : "filter table written\n");
