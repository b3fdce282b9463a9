-- Issue 13 (docs/spend.md): token classes and cost on usage records, dollar budgets, teams,
-- daily spend rollups.

-- Usage records: token classes, exact cost (12 decimals), price version, team.
ALTER TABLE "usage_records" ADD COLUMN "cached_tokens" INTEGER,
ADD COLUMN "cache_write_tokens" INTEGER,
ADD COLUMN "reasoning_tokens" INTEGER,
ADD COLUMN "cost_usd" DECIMAL(30,12),
ADD COLUMN "price_version" TEXT,
ADD COLUMN "team_id" UUID;

-- CreateTable
CREATE TABLE "teams" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "budget_usd" DECIMAL(20,6),
    "token_budget" INTEGER,
    "budget_period" TEXT,
    "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "teams_name_key" ON "teams"("name");

-- AlterTable
ALTER TABLE "virtual_keys" ADD COLUMN "budget_usd" DECIMAL(20,6),
ADD COLUMN "team_id" UUID;

-- CreateIndex
CREATE INDEX "virtual_keys_team_id_idx" ON "virtual_keys"("team_id");

-- AddForeignKey
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "usage_daily" (
    "day" DATE NOT NULL,
    "key_id" UUID NOT NULL,
    "team_id" TEXT NOT NULL DEFAULT '',
    "public_model" TEXT NOT NULL,
    "deployment" TEXT NOT NULL DEFAULT '',
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

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("day","key_id","team_id","public_model","deployment")
);

-- CreateIndex
CREATE INDEX "usage_daily_day_idx" ON "usage_daily"("day");

-- Hand-written: value checks Prisma's schema language cannot express. 'total' is a budget that
-- never renews.
ALTER TABLE "virtual_keys" DROP CONSTRAINT "virtual_keys_budget_period_check";
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_budget_period_check" CHECK ("budget_period" IN ('day', 'month', 'total'));
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_budget_usd_check" CHECK ("budget_usd" > 0);
ALTER TABLE "teams" ADD CONSTRAINT "teams_budget_period_check" CHECK ("budget_period" IN ('day', 'month', 'total'));
ALTER TABLE "teams" ADD CONSTRAINT "teams_budget_usd_check" CHECK ("budget_usd" > 0);
ALTER TABLE "teams" ADD CONSTRAINT "teams_token_budget_check" CHECK ("token_budget" > 0);
