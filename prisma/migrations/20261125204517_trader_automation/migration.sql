-- Trader automation: trade auto-accept (settings and one claim per sale) and the buy-order and
-- listing guards (their settings and the events told in digests and counted for the daily limit).
-- AlterEnum
ALTER TYPE "alert_kind" ADD VALUE 'auto_accept';
ALTER TYPE "alert_kind" ADD VALUE 'guard_digest';

-- CreateTable
CREATE TABLE "auto_accept_settings" (
    "user_id" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "min_price_cents" BIGINT,
    "item_contains" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "auto_accept_settings_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "auto_accepts" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "trade_id" TEXT NOT NULL,
    "outcome" TEXT NOT NULL DEFAULT 'pending',
    "detail" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "auto_accepts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "guards" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "item_name" TEXT,
    "limit_cents" BIGINT NOT NULL,
    "step_cents" BIGINT NOT NULL,
    "max_changes_per_day" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "stop_reason" TEXT,
    "last_price_cents" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "guards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "guard_events" (
    "id" SERIAL NOT NULL,
    "guard_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "from_cents" BIGINT,
    "to_cents" BIGINT,
    "rival_cents" BIGINT,
    "detail" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "digested_at" TIMESTAMPTZ(3),

    CONSTRAINT "guard_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "auto_accepts_user_id_trade_id_key" ON "auto_accepts"("user_id", "trade_id");

-- CreateIndex
CREATE INDEX "guards_status_idx" ON "guards"("status");

-- CreateIndex
CREATE UNIQUE INDEX "guards_user_id_kind_subject_id_key" ON "guards"("user_id", "kind", "subject_id");

-- CreateIndex
CREATE INDEX "guard_events_guard_id_at_idx" ON "guard_events"("guard_id", "at");

-- CreateIndex
CREATE INDEX "guard_events_user_id_digested_at_idx" ON "guard_events"("user_id", "digested_at");

-- AddForeignKey
ALTER TABLE "auto_accept_settings" ADD CONSTRAINT "auto_accept_settings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auto_accepts" ADD CONSTRAINT "auto_accepts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "guards" ADD CONSTRAINT "guards_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "guard_events" ADD CONSTRAINT "guard_events_guard_id_fkey" FOREIGN KEY ("guard_id") REFERENCES "guards"("id") ON DELETE CASCADE ON UPDATE CASCADE;
