-- What became of alerted listings (sold, delisted, gone from the feed), and the weekly missed-deal report.
-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'weekly_report';

-- AlterTable
ALTER TABLE "alert_log" ADD COLUMN     "gone_at" TIMESTAMPTZ(3),
ADD COLUMN     "gone_state" TEXT;

-- CreateIndex
CREATE INDEX "alert_log_subject_id_idx" ON "alert_log"("subject_id");
