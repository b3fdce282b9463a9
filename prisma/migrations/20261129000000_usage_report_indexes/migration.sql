-- Issue 53 (docs/usage.md, "Reports at scale"): usage and spend reports read whole days from
-- usage_daily and raw rows only for the partial days at a range's ends.

-- The partial days are found by time alone (the dashboard's views have no key or model filter).
-- BRIN: rows arrive in time order, so a summary per block range is enough, at a tiny size and
-- no cost per insert worth measuring.
CREATE INDEX "usage_records_created_at_idx" ON "usage_records" USING BRIN ("created_at");

-- Filtered reports over long ranges read one key's, one team's or one model's days first.
CREATE INDEX "usage_daily_key_id_day_idx" ON "usage_daily"("key_id", "day");
CREATE INDEX "usage_daily_team_id_day_idx" ON "usage_daily"("team_id", "day");
CREATE INDEX "usage_daily_public_model_day_idx" ON "usage_daily"("public_model", "day");

-- Weekly totals, written with the daily ones by the same statement (UsageRepository), so that a
-- report or a dashboard view over months reads one row per group and week. A week starts on a
-- Thursday, as the dashboard's 7-day buckets do (whole weeks since 1970-01-01, a Thursday).
CREATE TABLE "usage_weekly" (LIKE "usage_daily" INCLUDING DEFAULTS);
ALTER TABLE "usage_weekly" RENAME COLUMN "day" TO "week";
ALTER TABLE "usage_weekly" ADD CONSTRAINT "usage_weekly_pkey" PRIMARY KEY ("week", "key_id", "team_id", "public_model", "deployment");
ALTER TABLE "usage_weekly" ADD CONSTRAINT "usage_weekly_week_check" CHECK (("week" - DATE '1970-01-01') % 7 = 0);
CREATE INDEX "usage_weekly_key_id_week_idx" ON "usage_weekly"("key_id", "week");
CREATE INDEX "usage_weekly_team_id_week_idx" ON "usage_weekly"("team_id", "week");
CREATE INDEX "usage_weekly_public_model_week_idx" ON "usage_weekly"("public_model", "week");

-- The weeks of the rollups already there.
INSERT INTO "usage_weekly" ("week", "key_id", "team_id", "public_model", "deployment", "requests",
  "completed", "failed", "aborted", "prompt_tokens", "completion_tokens", "cached_tokens",
  "cache_write_tokens", "reasoning_tokens", "cost_usd", "unpriced_requests", "latency_ms")
SELECT "day" - (("day" - DATE '1970-01-01') % 7), "key_id", "team_id", "public_model", "deployment",
  sum("requests"), sum("completed"), sum("failed"), sum("aborted"), sum("prompt_tokens"),
  sum("completion_tokens"), sum("cached_tokens"), sum("cache_write_tokens"), sum("reasoning_tokens"),
  sum("cost_usd"), sum("unpriced_requests"), sum("latency_ms")
FROM "usage_daily" GROUP BY 1, 2, 3, 4, 5;
