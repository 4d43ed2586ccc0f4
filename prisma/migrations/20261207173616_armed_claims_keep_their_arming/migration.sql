-- A claim holds a buy of one arming of its rule (issue 50, defect 3). Re-arming a rule starts a
-- fresh count of buys; a purchase claimed under the arming before, still in flight (or awaiting
-- the reconciler), gave its buy back to whichever arming was current when it failed, so the new
-- arming could buy more than its confirmation showed. Each arming now has a number
-- (watch_rules.arm_generation, moved on by armRule), each claim records the number it took its
-- buy from (auto_buys.arm_generation), and a release gives the buy back only to that arming, once
-- (src/db/repos/autoBuys.ts releaseClaim).

-- AlterTable
ALTER TABLE "watch_rules" ADD COLUMN     "arm_generation" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "auto_buys" ADD COLUMN     "arm_generation" INTEGER;

-- Claims still waiting on their purchase's outcome when this runs belong to the current arming
-- when made since it was armed (the only arming a release could have given them back to before);
-- every other claim gives nothing back.
UPDATE "auto_buys" AS a
   SET "arm_generation" = 0
  FROM "watch_rules" AS w
 WHERE w."id" = a."rule_id" AND w."arm_mode" IS NOT NULL AND a."outcome" IN ('pending', 'unknown')
   AND a."created_at" >= coalesce(w."armed_at", '-infinity'::timestamptz);

-- claim_armed_match as in 20261128055210_claim_armed_match, its claim now recording the arming.
CREATE OR REPLACE FUNCTION "claim_armed_match"(
    p_user INTEGER, p_rule INTEGER, p_listing TEXT, p_mode "arm_mode", p_item TEXT, p_price BIGINT,
    p_reference BIGINT, p_exit BIGINT, p_seen TIMESTAMPTZ, p_key TEXT, p_filters JSONB,
    p_seller_platform TEXT)
  RETURNS TABLE(claim TEXT, auto_buy_id INTEGER, buy_number INTEGER, max_buys INTEGER,
                rule_name TEXT, arm_filters JSON, discord_id TEXT, status TEXT, encrypted_key TEXT,
                platform_id TEXT, linked_at TIMESTAMPTZ, daily_cap_cents BIGINT,
                reserve TEXT, purchase_id INTEGER, created TIMESTAMPTZ, cap_cents BIGINT,
                spent_cents BIGINT)
  LANGUAGE plpgsql VOLATILE AS $$
-- The output columns are variables of the same names as the tables' columns: in a query, a name
-- is the column; each step stores what it read in the output columns, returned once at the end.
#variable_conflict use_column
DECLARE
  try_reserve BOOLEAN := p_mode = 'live' AND p_filters IS NOT NULL;
  arming INTEGER;
BEGIN
  -- The owner first, as every spending path and every stop locks it. A reservation needs it FOR
  -- UPDATE: taken at once, since two matches of one owner that each held a weaker lock and then
  -- asked for this one would deadlock. A claim alone keeps the owner from being deleted under it.
  IF try_reserve THEN
    SELECT "discord_id", "status"::text, "encrypted_key", "platform_id", "linked_at", "daily_cap_cents"
      INTO discord_id, status, encrypted_key, platform_id, linked_at, daily_cap_cents
      FROM "users" WHERE "id" = p_user FOR UPDATE;
  ELSE
    SELECT "discord_id", "status"::text, "encrypted_key", "platform_id", "linked_at", "daily_cap_cents"
      INTO discord_id, status, encrypted_key, platform_id, linked_at, daily_cap_cents
      FROM "users" WHERE "id" = p_user FOR KEY SHARE;
  END IF;
  IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM "watch_rules" WHERE "id" = p_rule AND "user_id" = p_user) THEN
    claim := 'not_armed';
  ELSE
    INSERT INTO "auto_buys" ("user_id", "rule_id", "listing_id", "mode", "item_name", "price_cents",
                             "reference_cents", "exit_cents", "seen_at")
    VALUES (p_user, p_rule, p_listing, p_mode, p_item, p_price, p_reference, p_exit, p_seen)
    ON CONFLICT ("rule_id", "listing_id") DO NOTHING
    RETURNING "id" INTO auto_buy_id;
    IF auto_buy_id IS NULL THEN
      claim := 'seen';
    ELSE
      UPDATE "watch_rules" SET "arm_buys" = "arm_buys" + 1
       WHERE "id" = p_rule AND "user_id" = p_user AND "arm_mode" = p_mode AND "enabled"
         AND "arm_buys" < "arm_max_buys"
      RETURNING "arm_buys", "arm_max_buys", "name", "arm_filters", "arm_generation"
           INTO buy_number, max_buys, rule_name, arm_filters, arming;
      IF NOT FOUND THEN
        -- Not armed after all: the match is forgotten, so it is alerted as any other rule's would be.
        DELETE FROM "auto_buys" WHERE "id" = auto_buy_id;
        auto_buy_id := NULL;
        claim := 'not_armed';
      ELSE
        -- The buy taken is this arming's: only a release of this match gives it back, to this arming.
        UPDATE "auto_buys" SET "arm_generation" = arming WHERE "id" = auto_buy_id;
        claim := 'ok';
        reserve := 'not_tried';
        IF try_reserve AND arm_filters IS NOT NULL AND arm_filters::jsonb = p_filters
           AND status = 'active' AND encrypted_key IS NOT NULL AND daily_cap_cents IS NOT NULL
           AND (platform_id IS NULL OR p_seller_platform IS DISTINCT FROM platform_id) THEN
          SELECT rc.outcome, rc.purchase_id, rc.created, rc.cap_cents, rc.spent_cents
            INTO reserve, purchase_id, created, cap_cents, spent_cents
            FROM "reserve_commitment"(p_user, p_key, 'auto_buy', p_listing, ARRAY[p_listing],
                                      p_price, p_price, NULL, 'rule', p_rule) AS rc;
        END IF;
      END IF;
    END IF;
  END IF;
  -- A reservation is flushed before its purchase request can leave. Anything else commits without
  -- waiting for its flush (ADR 037): nothing leaves the process before a flushed commit after it.
  IF reserve IS DISTINCT FROM 'ok' THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  RETURN NEXT;
END
$$;
