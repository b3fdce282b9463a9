-- Issue 51 (docs/spend.md, "Spend by end user"): the end user a request was made for (a
-- format's `user` / `metadata.user_id`, or the x-gateway-end-user header), at most 256
-- characters; null when the client named none. Added to the partitioned parent, so every
-- partition, existing or created later, has it.
ALTER TABLE "usage_records" ADD COLUMN "end_user" TEXT;

-- Daily totals per end user, written by the statement that writes usage_daily and only for rows
-- with an end user, so that spend by end user outlives USAGE_RETENTION_DAYS. A table of its own,
-- not a column of usage_daily's key: end users are unbounded, and every other report and
-- dashboard view reads usage_daily and usage_weekly. '' stands for "no team".
CREATE TABLE "usage_daily_end_user" (
    "day" DATE NOT NULL,
    "key_id" UUID NOT NULL,
    "team_id" TEXT NOT NULL DEFAULT '',
    "end_user" TEXT NOT NULL,
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

    CONSTRAINT "usage_daily_end_user_pkey" PRIMARY KEY ("day", "key_id", "team_id", "end_user", "public_model", "endpoint")
);

-- One end user's days (the dashboard's filter), and one key's or one team's (report filters).
CREATE INDEX "usage_daily_end_user_end_user_day_idx" ON "usage_daily_end_user"("end_user", "day");
CREATE INDEX "usage_daily_end_user_key_id_day_idx" ON "usage_daily_end_user"("key_id", "day");
CREATE INDEX "usage_daily_end_user_team_id_day_idx" ON "usage_daily_end_user"("team_id", "day");
