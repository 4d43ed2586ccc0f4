-- One marketplace account belongs to one Discord user at a time (issue 50): two Discord users
-- linking the same account would spend it through two sets of caps. linkUser refuses a second
-- link (src/db/repos/users.ts); this index makes sure two links at once cannot both win. It is
-- partial (active links whose platform id is known), which schema.prisma cannot describe: the
-- User model names it in a comment and the drift test expects it (test/db/drift.test.ts).

-- An account linked to several Discord users before this stays with the first who linked it. The
-- later links are unlinked as /account unlink does: the key forgotten, every automatic action
-- stopped, tracked bids, trades and buy orders dropped, and the link generation moved on, so
-- nothing confirmed on that link acts again. They can link it once the first link is unlinked.
WITH "later" AS (
  SELECT "id" FROM (
    SELECT "id", row_number() OVER (PARTITION BY "platform_id" ORDER BY "linked_at" ASC NULLS LAST, "id") AS n
      FROM "users" WHERE "status" = 'active' AND "platform_id" IS NOT NULL
  ) AS ranked
   WHERE n > 1
), "rules" AS (
  UPDATE "watch_rules" SET "arm_mode" = NULL, "updated_at" = now()
   WHERE "arm_mode" = 'live' AND "user_id" IN (SELECT "id" FROM "later") RETURNING 1
), "guards_off" AS (
  UPDATE "guards" SET "status" = 'off', "stop_reason" = 'another Discord user has this marketplace account linked', "updated_at" = now()
   WHERE "status" = 'active' AND "user_id" IN (SELECT "id" FROM "later") RETURNING 1
), "accept_off" AS (
  UPDATE "auto_accept_settings" SET "enabled" = false, "updated_at" = now()
   WHERE "enabled" AND "user_id" IN (SELECT "id" FROM "later") RETURNING 1
), "bids" AS (
  DELETE FROM "tracked_bids" WHERE "user_id" IN (SELECT "id" FROM "later") RETURNING 1
), "trades" AS (
  DELETE FROM "tracked_trades" WHERE "user_id" IN (SELECT "id" FROM "later") RETURNING 1
), "orders" AS (
  DELETE FROM "tracked_buy_orders" WHERE "user_id" IN (SELECT "id" FROM "later") RETURNING 1
)
UPDATE "users"
   SET "encrypted_key" = NULL, "key_id" = NULL, "key_fingerprint" = NULL, "platform_id" = NULL,
       "platform_name" = NULL, "status" = 'unlinked', "linked_at" = NULL,
       "link_generation" = "link_generation" + 1, "updated_at" = now()
 WHERE "id" IN (SELECT "id" FROM "later");

-- CreateIndex
CREATE UNIQUE INDEX "users_active_platform_id_key" ON "users"("platform_id")
 WHERE "status" = 'active' AND "platform_id" IS NOT NULL;
