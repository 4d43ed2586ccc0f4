-- Notices to watchers when the feed had to give up listings it could not read in time.
-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'feed_gap';
