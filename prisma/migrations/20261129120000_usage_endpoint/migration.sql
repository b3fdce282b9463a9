-- The API each request came in by (chat_completions, messages), for usage by endpoint. Rows
-- written before it were all chat completions. Added to the partitioned parent, so every
-- partition, existing or created later, has it.
ALTER TABLE "usage_records" ADD COLUMN "endpoint" TEXT NOT NULL DEFAULT 'chat_completions';
