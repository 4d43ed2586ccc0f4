-- A rollback in a user's ledger (a reversed trade or charge) is alerted once per ledger entry.
-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'reversal';
