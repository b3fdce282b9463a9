-- Hourly totals per key, model and endpoint (docs/usage.md, "Reports at scale"), written with
-- the daily and weekly ones by the same statement (UsageRepository). A report or dashboard view
-- reads them for the whole hours of the partial days at its ends, so it reads raw records for at
-- most the two partial hours; the dashboard's views up to two days are drawn from them in hours.
-- Only the dimensions those reads group or filter by: no team or deployment (spend reports, which
-- have them, cover whole days). Kept as long as the raw records (UsagePartitions).
CREATE TABLE "usage_hourly" (
    "hour" TIMESTAMPTZ NOT NULL,
    "key_id" UUID NOT NULL,
    "public_model" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "completed" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "aborted" INTEGER NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "cached_tokens" BIGINT NOT NULL,
    "cache_write_tokens" BIGINT NOT NULL,
    "reasoning_tokens" BIGINT NOT NULL,
    "cost_usd" DECIMAL(30,12) NOT NULL,
    "unpriced_requests" INTEGER NOT NULL,
    "latency_ms" BIGINT NOT NULL,

    CONSTRAINT "usage_hourly_pkey" PRIMARY KEY ("hour", "key_id", "public_model", "endpoint"),
    CONSTRAINT "usage_hourly_hour_check" CHECK ("hour" = date_bin('1 hour', "hour", TIMESTAMPTZ '1970-01-01 00:00:00+00'))
);

-- The hours of the raw records already there.
INSERT INTO "usage_hourly" ("hour", "key_id", "public_model", "endpoint", "requests", "completed",
  "failed", "aborted", "prompt_tokens", "completion_tokens", "cached_tokens", "cache_write_tokens",
  "reasoning_tokens", "cost_usd", "unpriced_requests", "latency_ms")
SELECT date_bin('1 hour', "created_at", TIMESTAMPTZ '1970-01-01 00:00:00+00'), "key_id",
  "public_model", "endpoint", count(*), count(*) FILTER (WHERE "status" = 'completed'),
  count(*) FILTER (WHERE "status" = 'failed'), count(*) FILTER (WHERE "status" = 'aborted'),
  sum("prompt_tokens"), sum("completion_tokens"), COALESCE(sum("cached_tokens"), 0),
  COALESCE(sum("cache_write_tokens"), 0), COALESCE(sum("reasoning_tokens"), 0),
  COALESCE(sum("cost_usd"), 0), count(*) FILTER (WHERE "cost_usd" IS NULL), sum("latency_ms")
FROM "usage_records" GROUP BY 1, 2, 3, 4;
