-- Armed watch rules (snipe mode): a rule can buy what it matches, in shadow (records what it
-- would have bought) or live (buys through the spending guard), up to a number of buys.
-- CreateEnum
CREATE TYPE "arm_mode" AS ENUM ('shadow', 'live');

-- CreateEnum
CREATE TYPE "auto_buy_outcome" AS ENUM ('pending', 'would_buy', 'would_refuse', 'bought', 'lost', 'cap_refused', 'key_refused', 'unknown', 'failed', 'skipped');

-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'auto_buy';

-- AlterTable
ALTER TABLE "watch_rules" ADD COLUMN     "arm_mode" "arm_mode",
ADD COLUMN     "arm_max_buys" INTEGER,
ADD COLUMN     "arm_buys" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "armed_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "auto_buys" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "rule_id" INTEGER,
    "listing_id" TEXT NOT NULL,
    "mode" "arm_mode" NOT NULL,
    "item_name" TEXT NOT NULL,
    "price_cents" BIGINT NOT NULL,
    "reference_cents" BIGINT,
    "exit_cents" BIGINT,
    "outcome" "auto_buy_outcome" NOT NULL DEFAULT 'pending',
    "detail" TEXT,
    "seen_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "auto_buys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "auto_buys_rule_id_listing_id_key" ON "auto_buys"("rule_id", "listing_id");

-- CreateIndex
CREATE INDEX "auto_buys_user_id_created_at_idx" ON "auto_buys"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "auto_buys" ADD CONSTRAINT "auto_buys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auto_buys" ADD CONSTRAINT "auto_buys_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "watch_rules"("id") ON DELETE SET NULL ON UPDATE CASCADE;
