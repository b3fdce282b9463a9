-- Issue 50 (docs/responses.md): responses of POST /v1/responses kept for previous_response_id,
-- GET and DELETE by the key that created them. No foreign keys: keys are never deleted, and a
-- deleted or expired link must make its chain answer 404 rather than shorten it.

-- CreateTable
CREATE TABLE "stored_responses" (
    "id" TEXT NOT NULL,
    "key_id" UUID NOT NULL,
    "previous_response_id" TEXT,
    "input_items" JSON NOT NULL,
    "output_items" JSON NOT NULL,
    "settings" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stored_responses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stored_responses_created_at_idx" ON "stored_responses"("created_at");
