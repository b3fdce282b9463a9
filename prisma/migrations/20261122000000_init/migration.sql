-- CreateTable
CREATE TABLE "virtual_keys" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "secret_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "rpm_limit" INTEGER,
    "tpm_limit" INTEGER,
    "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "virtual_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "virtual_keys_name_key" ON "virtual_keys"("name");

-- CreateIndex
CREATE UNIQUE INDEX "virtual_keys_secret_hash_key" ON "virtual_keys"("secret_hash");
