-- CreateEnum
CREATE TYPE "link_status" AS ENUM ('active', 'revoked', 'unlinked');

-- CreateEnum
CREATE TYPE "destination" AS ENUM ('dm', 'channel');

-- CreateEnum
CREATE TYPE "alert_kind" AS ENUM ('listing', 'outbid', 'auction_won', 'auction_lost', 'trade', 'trade_reminder', 'buyorder_fill', 'key_revoked', 'digest');

-- CreateEnum
CREATE TYPE "outbox_status" AS ENUM ('pending', 'sending', 'sent', 'failed', 'held');

-- CreateEnum
CREATE TYPE "bid_status" AS ENUM ('active', 'outbid', 'won', 'lost', 'cancelled');

-- CreateEnum
CREATE TYPE "trade_role" AS ENUM ('buyer', 'seller');

-- CreateEnum
CREATE TYPE "purchase_status" AS ENUM ('pending', 'succeeded', 'failed', 'unknown');

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "discord_id" TEXT NOT NULL,
    "encrypted_key" TEXT,
    "key_id" TEXT,
    "key_fingerprint" TEXT,
    "platform_id" TEXT,
    "platform_name" TEXT,
    "status" "link_status" NOT NULL DEFAULT 'active',
    "linked_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_notified_at" TIMESTAMPTZ(3),
    "default_destination" "destination" NOT NULL DEFAULT 'dm',
    "default_guild_id" TEXT,
    "default_channel_id" TEXT,
    "per_purchase_cap_cents" BIGINT,
    "daily_cap_cents" BIGINT,
    "alert_listing" BOOLEAN NOT NULL DEFAULT true,
    "alert_outbid" BOOLEAN NOT NULL DEFAULT true,
    "alert_trade" BOOLEAN NOT NULL DEFAULT true,
    "alert_buy_order" BOOLEAN NOT NULL DEFAULT true,
    "quiet_hours_start" INTEGER,
    "quiet_hours_end" INTEGER,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "dm_closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "watch_rules" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "filters" JSONB NOT NULL,
    "item_key" TEXT,
    "def_index" INTEGER,
    "paint_index" INTEGER,
    "destination" "destination" NOT NULL DEFAULT 'dm',
    "guild_id" TEXT,
    "channel_id" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "match_count" INTEGER NOT NULL DEFAULT 0,
    "last_matched_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "watch_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_log" (
    "id" BIGSERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "rule_id" INTEGER,
    "kind" "alert_kind" NOT NULL,
    "subject_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "alert_id" BIGINT,
    "user_id" INTEGER NOT NULL,
    "destination" "destination" NOT NULL,
    "channel_id" TEXT,
    "payload" JSONB NOT NULL,
    "status" "outbox_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "discord_message_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tracked_bids" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "listing_id" TEXT NOT NULL,
    "max_price_cents" BIGINT NOT NULL,
    "last_seen_top_bid_cents" BIGINT,
    "last_seen_top_bidder_is_user" BOOLEAN,
    "status" "bid_status" NOT NULL DEFAULT 'active',
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracked_bids_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tracked_trades" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "trade_id" TEXT NOT NULL,
    "role" "trade_role" NOT NULL,
    "last_known_state" TEXT NOT NULL,
    "last_notified_state" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "reminders_sent" INTEGER NOT NULL DEFAULT 0,
    "last_reminder_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracked_trades_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tracked_buy_orders" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "order_id" TEXT NOT NULL,
    "last_bought_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracked_buy_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "poller_state" (
    "key" TEXT NOT NULL,
    "high_water_mark" TEXT,
    "high_water_created_at" TIMESTAMPTZ(3),
    "extra" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "poller_state_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "purchases" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "listing_ids" TEXT[],
    "total_cents" BIGINT NOT NULL,
    "status" "purchase_status" NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "purchases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "command_registrations" (
    "scope" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "command_registrations_pkey" PRIMARY KEY ("scope")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_discord_id_key" ON "users"("discord_id");

-- CreateIndex
CREATE INDEX "users_status_idx" ON "users"("status");

-- CreateIndex
CREATE INDEX "watch_rules_item_key_idx" ON "watch_rules"("item_key");

-- CreateIndex
CREATE INDEX "watch_rules_def_index_paint_index_idx" ON "watch_rules"("def_index", "paint_index");

-- CreateIndex
CREATE UNIQUE INDEX "watch_rules_user_id_name_key" ON "watch_rules"("user_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "alert_log_dedupe_key_key" ON "alert_log"("dedupe_key");

-- CreateIndex
CREATE INDEX "alert_log_user_id_created_at_idx" ON "alert_log"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "alert_log_rule_id_idx" ON "alert_log"("rule_id");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_alert_id_key" ON "outbox"("alert_id");

-- CreateIndex
CREATE INDEX "outbox_status_next_attempt_at_idx" ON "outbox"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "outbox_user_id_status_idx" ON "outbox"("user_id", "status");

-- CreateIndex
CREATE INDEX "tracked_bids_status_expires_at_idx" ON "tracked_bids"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "tracked_bids_user_id_listing_id_key" ON "tracked_bids"("user_id", "listing_id");

-- CreateIndex
CREATE INDEX "tracked_trades_closed_at_idx" ON "tracked_trades"("closed_at");

-- CreateIndex
CREATE UNIQUE INDEX "tracked_trades_user_id_trade_id_key" ON "tracked_trades"("user_id", "trade_id");

-- CreateIndex
CREATE UNIQUE INDEX "tracked_buy_orders_user_id_order_id_key" ON "tracked_buy_orders"("user_id", "order_id");

-- CreateIndex
CREATE UNIQUE INDEX "purchases_idempotency_key_key" ON "purchases"("idempotency_key");

-- CreateIndex
CREATE INDEX "purchases_user_id_created_at_idx" ON "purchases"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "watch_rules" ADD CONSTRAINT "watch_rules_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_log" ADD CONSTRAINT "alert_log_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_log" ADD CONSTRAINT "alert_log_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "watch_rules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alert_log"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tracked_bids" ADD CONSTRAINT "tracked_bids_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tracked_trades" ADD CONSTRAINT "tracked_trades_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tracked_buy_orders" ADD CONSTRAINT "tracked_buy_orders_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

