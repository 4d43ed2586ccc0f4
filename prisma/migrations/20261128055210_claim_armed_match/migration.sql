-- Snipe mode's hot path in one statement (ADR 040). An armed rule's match is recorded once per
-- rule and listing and takes one of the rule's buys while it is armed in that mode with buys left
-- (as the claim's CTE in src/db/repos/autoBuys.ts did). For a live rule, when the caller checked
-- the listing against p_filters and those are the filters the owner confirmed at arming, and the
-- owner's account may buy (linked, a key, a daily cap, not the seller), the spend is reserved in
-- the same statement through reserve_commitment, under the same checks as any other buy. In
-- every other case nothing is reserved, and the rule and owner returned let the caller decide
-- (a reservation of its own, or a refusal): the statement never reserves what that would refuse.
CREATE FUNCTION "claim_armed_match"(
    p_user INTEGER, p_rule INTEGER, p_listing TEXT, p_mode "arm_mode", p_item TEXT, p_price BIGINT,
    p_reference BIGINT, p_exit BIGINT, p_seen TIMESTAMPTZ, p_key TEXT, p_filters JSONB,
    p_seller_platform TEXT)
  RETURNS TABLE(claim TEXT, auto_buy_id INTEGER, buy_number INTEGER, max_buys INTEGER,
                rule_name TEXT, arm_filters JSON, discord_id TEXT, status TEXT, encrypted_key TEXT,
                platform_id TEXT, linked_at TIMESTAMPTZ, daily_cap_cents BIGINT,
                reserve TEXT, purchase_id INTEGER, created TIMESTAMPTZ, cap_cents BIGINT,
                spent_cents BIGINT)
  LANGUAGE plpgsql VOLATILE AS $$
-- The output columns share names with the tables' columns: in a query, a name is the column.
#variable_conflict use_column
DECLARE
  try_reserve BOOLEAN := p_mode = 'live' AND p_filters IS NOT NULL;
  u RECORD;
  r RECORD;
  res RECORD;
  new_id INTEGER;
BEGIN
  -- The owner first, as every spending path and every stop locks it. A reservation needs it FOR
  -- UPDATE: taken at once, since two matches of one owner that each held a weaker lock and then
  -- asked for this one would deadlock. A claim alone keeps the owner from being deleted under it.
  IF try_reserve THEN
    SELECT "discord_id", "status"::text AS status, "encrypted_key", "platform_id", "linked_at",
           "daily_cap_cents"
      INTO u FROM "users" WHERE "id" = p_user FOR UPDATE;
  ELSE
    SELECT "discord_id", "status"::text AS status, "encrypted_key", "platform_id", "linked_at",
           "daily_cap_cents"
      INTO u FROM "users" WHERE "id" = p_user FOR KEY SHARE;
  END IF;
  -- What is decided without a reservation is committed without waiting for its flush (ADR 037):
  -- nothing leaves the process before a flushed commit that follows it.
  IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM "watch_rules" WHERE "id" = p_rule AND "user_id" = p_user) THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'not_armed'::text, NULL::integer, NULL::integer, NULL::integer, NULL::text,
      NULL::json, NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::bigint,
      NULL::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  INSERT INTO "auto_buys" ("user_id", "rule_id", "listing_id", "mode", "item_name", "price_cents",
                           "reference_cents", "exit_cents", "seen_at")
  VALUES (p_user, p_rule, p_listing, p_mode, p_item, p_price, p_reference, p_exit, p_seen)
  ON CONFLICT ("rule_id", "listing_id") DO NOTHING
  RETURNING "id" INTO new_id;
  IF new_id IS NULL THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'seen'::text, NULL::integer, NULL::integer, NULL::integer, NULL::text,
      NULL::json, NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::bigint,
      NULL::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  UPDATE "watch_rules" SET "arm_buys" = "arm_buys" + 1
   WHERE "id" = p_rule AND "user_id" = p_user AND "arm_mode" = p_mode AND "enabled"
     AND "arm_buys" < "arm_max_buys"
  RETURNING "arm_buys", "arm_max_buys", "name", "arm_filters" INTO r;
  IF NOT FOUND THEN
    -- Not armed after all: the match is forgotten, so it is alerted as any other rule's would be.
    DELETE FROM "auto_buys" WHERE "id" = new_id;
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'not_armed'::text, NULL::integer, NULL::integer, NULL::integer, NULL::text,
      NULL::json, NULL::text, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::bigint,
      NULL::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  IF try_reserve AND r."arm_filters" IS NOT NULL AND r."arm_filters"::jsonb = p_filters
     AND u.status = 'active' AND u."encrypted_key" IS NOT NULL AND u."daily_cap_cents" IS NOT NULL
     AND (u."platform_id" IS NULL OR p_seller_platform IS DISTINCT FROM u."platform_id") THEN
    SELECT * INTO res FROM "reserve_commitment"(p_user, p_key, 'auto_buy', p_listing,
      ARRAY[p_listing], p_price, p_price, NULL, 'rule', p_rule);
  ELSE
    SELECT 'not_tried'::text AS outcome, NULL::integer AS purchase_id, NULL::timestamptz AS created,
           NULL::bigint AS cap_cents, NULL::bigint AS spent_cents INTO res;
  END IF;
  -- A reservation is flushed before its purchase request can leave; anything else need not be.
  IF res.outcome <> 'ok' THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  RETURN QUERY SELECT 'ok'::text, new_id, r."arm_buys", r."arm_max_buys", r."name", r."arm_filters",
    u."discord_id", u.status, u."encrypted_key", u."platform_id", u."linked_at", u."daily_cap_cents",
    res.outcome, res.purchase_id, res.created, res.cap_cents, res.spent_cents;
END
$$;
