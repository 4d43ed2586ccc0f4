-- Watch rules' filters as json (kept as written) rather than jsonb: the rule load reads every
-- rule's filters back as text, and jsonb's conversion to text was most of Postgres' share of a
-- million-rule load (docs/decisions/030-rule-load-pipeline.md). Nothing queries inside them but a
-- tier lookup by path, which json serves as well.
-- AlterTable
ALTER TABLE "watch_rules" ALTER COLUMN "filters" SET DATA TYPE JSON USING "filters"::json;
