-- What a live-armed rule has committed, defined once: the sum of its auto-buys since it was armed
-- (purchases of kind auto_buy keyed `auto:<rule id>:...`) that are pending, open, unknown or bought.
-- reserve_commitment checks a buy against the rule's budget with it, and the automation overview
-- (src/db/repos/automation.ts) shows it. STABLE: it reads with its caller's snapshot, which in
-- reserve_commitment is taken after the user's row lock, as the inline sum's was.
CREATE FUNCTION "armed_rule_committed_cents"(p_user INTEGER, p_rule INTEGER, p_since TIMESTAMPTZ)
  RETURNS BIGINT LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum("total_cents"), 0)::bigint FROM "purchases"
           WHERE "user_id" = p_user AND "kind" = 'auto_buy'
             AND "idempotency_key" LIKE 'auto:' || p_rule || ':%'
             AND "created_at" >= coalesce(p_since, '-infinity'::timestamptz)
             AND "status" IN ('pending', 'open', 'unknown', 'succeeded'));
END
$$;

-- reserve_commitment as in 20261127190006_automation_bounds, its budget sum now the function above.
CREATE OR REPLACE FUNCTION "reserve_commitment"(
    p_user INTEGER, p_key TEXT, p_kind "spend_kind", p_subject TEXT, p_listing_ids TEXT[],
    p_unit BIGINT, p_total BIGINT, p_replaces INTEGER, p_auth TEXT, p_auth_id INTEGER)
  RETURNS TABLE(outcome TEXT, purchase_id INTEGER, created TIMESTAMPTZ, cap_cents BIGINT, spent_cents BIGINT)
  LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  u RECORD;
  a RECORD;
  prev_id INTEGER;
  spent BIGINT;
  new_id INTEGER;
  new_at TIMESTAMPTZ;
BEGIN
  SELECT "per_purchase_cap_cents" AS per_cap, "daily_cap_cents" AS daily_cap, "status"::text AS status,
         "encrypted_key" IS NOT NULL AS keyed, "link_generation" AS gen
    INTO u FROM "users" WHERE "id" = p_user FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_user'::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  SELECT "id" INTO prev_id FROM "purchases" WHERE "idempotency_key" = p_key;
  IF FOUND THEN
    RETURN QUERY SELECT 'duplicate'::text, prev_id, NULL::timestamptz, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  IF p_auth = 'rule' THEN
    SELECT "arm_ceiling_cents" AS ceiling, "arm_budget_cents" AS budget, "armed_at" AS since
      INTO a FROM "watch_rules"
     WHERE "id" = p_auth_id AND "user_id" = p_user AND "arm_mode" = 'live' AND "enabled"
       AND "arm_link_generation" = u.gen AND u.status = 'active' AND u.keyed;
    IF NOT FOUND OR a.ceiling IS NULL OR a.budget IS NULL THEN
      RETURN QUERY SELECT 'stopped'::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
    -- A listing is bought at most once per user, whichever of their armed rules matched it.
    IF EXISTS (SELECT 1 FROM "purchases"
                WHERE "user_id" = p_user AND "kind" IN ('buy', 'auto_buy')
                  AND "status" IN ('pending', 'unknown', 'succeeded') AND p_subject = ANY("listing_ids")) THEN
      RETURN QUERY SELECT 'owned'::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
    IF p_unit > a.ceiling THEN
      RETURN QUERY SELECT 'ceiling'::text, NULL::integer, NULL::timestamptz, a.ceiling, NULL::bigint;
      RETURN;
    END IF;
    SELECT "armed_rule_committed_cents"(p_user, p_auth_id, a.since) INTO spent;
    IF spent + p_total > a.budget THEN
      RETURN QUERY SELECT 'budget'::text, NULL::integer, NULL::timestamptz, a.budget, spent;
      RETURN;
    END IF;
  ELSIF p_auth = 'guard' THEN
    SELECT "limit_cents" AS ceiling INTO a FROM "guards"
     WHERE "id" = p_auth_id AND "user_id" = p_user AND "kind" = 'buy_order' AND "status" = 'active'
       AND "link_generation" = u.gen AND u.status = 'active' AND u.keyed;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'stopped'::text, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
    IF p_unit > a.ceiling THEN
      RETURN QUERY SELECT 'ceiling'::text, NULL::integer, NULL::timestamptz, a.ceiling, NULL::bigint;
      RETURN;
    END IF;
  ELSIF p_auth IS NOT NULL THEN
    RAISE EXCEPTION 'unknown automation kind %', p_auth;
  END IF;
  IF u.per_cap IS NOT NULL AND p_unit > u.per_cap THEN
    RETURN QUERY SELECT 'per_purchase_cap'::text, NULL::integer, NULL::timestamptz, u.per_cap, NULL::bigint;
    RETURN;
  END IF;
  IF u.daily_cap IS NOT NULL THEN
    SELECT coalesce(sum("total_cents"), 0)::bigint INTO spent FROM "purchases"
     WHERE "user_id" = p_user AND "id" <> coalesce(p_replaces, -1)
       AND ("status" IN ('pending', 'open', 'unknown')
            OR ("status" = 'succeeded'
                AND coalesce("settled_at", "created_at") > now() - interval '24 hours'));
    IF spent + p_total > u.daily_cap THEN
      RETURN QUERY SELECT 'daily_cap'::text, NULL::integer, NULL::timestamptz, u.daily_cap, spent;
      RETURN;
    END IF;
  END IF;
  INSERT INTO "purchases" ("user_id", "idempotency_key", "kind", "subject_id", "listing_ids",
                           "unit_price_cents", "total_cents")
  VALUES (p_user, p_key, p_kind, p_subject, coalesce(p_listing_ids, '{}'), p_unit, p_total)
  RETURNING "id", "created_at" INTO new_id, new_at;
  RETURN QUERY SELECT 'ok'::text, new_id, new_at, NULL::bigint, NULL::bigint;
END
$$;
