-- POST /api/v1/conversations/{id}/export "exports a call or conversation" (spec): an export's
-- subject is either a conversation or a call, never both. Exports of a call are found under the
-- call's id, as the conversation's are under its own, and go with the call as they go with it.
ALTER TABLE conversation_exports ALTER COLUMN conversation_id DROP NOT NULL;
ALTER TABLE conversation_exports ADD COLUMN call_id text REFERENCES calls (id) ON DELETE CASCADE;
ALTER TABLE conversation_exports ADD CONSTRAINT conversation_exports_one_subject
  CHECK ((conversation_id IS NULL) <> (call_id IS NULL));
CREATE INDEX conversation_exports_call_idx ON conversation_exports (tenant_id, call_id, created_at DESC)
  WHERE call_id IS NOT NULL;
