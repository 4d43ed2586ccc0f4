-- Outbox claim order: a priority tier per row (snipe outcomes first, listings after), and an index
-- that returns each status's rows in claim order so the claim reads no more than a batch.
-- AlterTable
ALTER TABLE "outbox" ADD COLUMN     "priority" SMALLINT NOT NULL DEFAULT 20;

-- DropIndex
DROP INDEX "outbox_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "outbox_status_priority_next_attempt_at_id_idx" ON "outbox"("status", "priority", "next_attempt_at", "id");

-- Rows still waiting take their kind's tier (src/db/repos/alerts.ts priorityOf).
UPDATE "outbox" o SET "priority" = CASE a."kind"
    WHEN 'auto_buy' THEN 0
    WHEN 'weekly_report' THEN 30
    WHEN 'listing' THEN 20
    WHEN 'digest' THEN 20
    WHEN 'feed_gap' THEN 20
    ELSE 10 END
  FROM "alert_log" a
 WHERE a."id" = o."alert_id" AND o."status" IN ('pending', 'sending', 'held');
