-- CreateEnum
CREATE TYPE "usage_status" AS ENUM ('completed', 'failed', 'aborted');

-- AlterTable
ALTER TABLE "virtual_keys" ADD COLUMN     "budget_period" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_secret_hash" CHAR(64),
ADD COLUMN     "token_budget" INTEGER;

-- CreateTable
-- Hand-edited: PARTITION BY RANGE, which Prisma's schema language cannot express. Monthly
-- partitions are created ahead of time (and old ones dropped for retention) by the gateway's
-- UsagePartitions service; the default partition catches any row no monthly partition covers.
CREATE TABLE "usage_records" (
    "id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "request_id" TEXT NOT NULL,
    "key_id" UUID NOT NULL,
    "public_model" TEXT NOT NULL,
    "deployment" TEXT,
    "status" "usage_status" NOT NULL,
    "http_status" INTEGER NOT NULL,
    "error_code" TEXT,
    "stream" BOOLEAN NOT NULL,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id","created_at")
) PARTITION BY RANGE ("created_at");

-- Hand-written: the catch-all partition.
CREATE TABLE "usage_records_default" PARTITION OF "usage_records" DEFAULT;

-- CreateIndex
CREATE INDEX "usage_records_key_id_created_at_idx" ON "usage_records"("key_id", "created_at");

-- CreateIndex
CREATE INDEX "usage_records_public_model_created_at_idx" ON "usage_records"("public_model", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "virtual_keys_previous_secret_hash_key" ON "virtual_keys"("previous_secret_hash");

-- Hand-written: value checks Prisma's schema language cannot express.
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_budget_period_check" CHECK ("budget_period" IN ('day', 'month'));
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_token_budget_check" CHECK ("token_budget" > 0);
