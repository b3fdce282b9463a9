-- The API each request came in by is a dimension of the daily and weekly rollups too, so usage
-- by endpoint is read from them like usage by key or model. Rows rolled up before it were all
-- chat completions.
ALTER TABLE "usage_daily" ADD COLUMN "endpoint" TEXT NOT NULL DEFAULT 'chat_completions';
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_pkey";
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("day", "key_id", "team_id", "public_model", "deployment", "endpoint");

ALTER TABLE "usage_weekly" ADD COLUMN "endpoint" TEXT NOT NULL DEFAULT 'chat_completions';
ALTER TABLE "usage_weekly" DROP CONSTRAINT "usage_weekly_pkey";
ALTER TABLE "usage_weekly" ADD CONSTRAINT "usage_weekly_pkey" PRIMARY KEY ("week", "key_id", "team_id", "public_model", "deployment", "endpoint");
