-- Issue 52 (docs/sso.md): people and service accounts from the identity provider, key owners,
-- and the append-only audit log.

-- CreateTable
CREATE TABLE "admin_users" (
    "id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "name" TEXT,
    "groups" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "roles" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_sign_in_at" TIMESTAMPTZ(3),

    CONSTRAINT "admin_users_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "admin_users_issuer_subject_key" ON "admin_users"("issuer", "subject");

-- AlterTable
ALTER TABLE "virtual_keys" ADD COLUMN "owner_user_id" UUID;

-- CreateIndex
CREATE INDEX "virtual_keys_owner_user_id_idx" ON "virtual_keys"("owner_user_id");

-- AddForeignKey
ALTER TABLE "virtual_keys" ADD CONSTRAINT "virtual_keys_owner_user_id_fkey" FOREIGN KEY ("owner_user_id") REFERENCES "admin_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT,
    "target_id" TEXT,
    "target_name" TEXT,
    "before" JSONB,
    "after" JSONB,
    "source_ip" TEXT,
    "request_id" TEXT,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");

-- CreateIndex
CREATE INDEX "audit_log_target_id_idx" ON "audit_log"("target_id");

-- CreateIndex
CREATE INDEX "audit_log_actor_id_idx" ON "audit_log"("actor_id");

-- Append-only: no UPDATE, no TRUNCATE, and DELETE only through audit_log_purge, the retention
-- job's (AuditRetention, AUDIT_RETENTION_DAYS), which sets gateway.audit_retention around it.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('gateway.audit_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

-- One statement, so the purge needs no transaction block of the caller's.
CREATE FUNCTION "audit_log_purge"(cutoff TIMESTAMPTZ) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    deleted INTEGER;
BEGIN
    PERFORM set_config('gateway.audit_retention', 'on', true);
    DELETE FROM "audit_log" WHERE "created_at" < cutoff;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    PERFORM set_config('gateway.audit_retention', 'off', true);
    RETURN deleted;
END
$$;

CREATE TRIGGER "audit_log_no_change" BEFORE UPDATE OR DELETE ON "audit_log"
    FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();

CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
