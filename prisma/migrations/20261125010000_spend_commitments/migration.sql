-- Spend commitments: bids, buy orders and offers are held against the caps like purchases.
-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'settlement';

-- AlterEnum
ALTER TYPE "purchase_status" ADD VALUE 'open';
ALTER TYPE "purchase_status" ADD VALUE 'released';

-- CreateEnum
CREATE TYPE "spend_kind" AS ENUM ('buy', 'bid', 'buy_order', 'offer', 'auto_buy');

-- AlterTable
ALTER TABLE "purchases" ADD COLUMN     "kind" "spend_kind" NOT NULL DEFAULT 'buy',
ADD COLUMN     "subject_id" TEXT,
ADD COLUMN     "unit_price_cents" BIGINT;

-- CreateIndex
CREATE INDEX "purchases_user_id_status_idx" ON "purchases"("user_id", "status");

-- CreateIndex
CREATE INDEX "purchases_kind_status_idx" ON "purchases"("kind", "status");

-- New users start with caps: $100 a purchase, $300 a day (existing users keep theirs).
-- AlterTable
ALTER TABLE "users" ALTER COLUMN "per_purchase_cap_cents" SET DEFAULT 10000,
ALTER COLUMN "daily_cap_cents" SET DEFAULT 30000;
