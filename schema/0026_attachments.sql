-- Files: one row per stored file (an attachment of a ticket or a conversation, or a call's
-- recording). The bytes are never here: `storage_key` names them in the storage (an R2 bucket, an
-- S3-compatible bucket, or a folder under DATA_DIR: docs/files.md); Postgres keeps what a list, a
-- link and the per-plan cap need.
CREATE TABLE attachments (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- `ticket`, `conversation` or `call` (a recording)
  owner_type    text NOT NULL CHECK (owner_type IN ('ticket', 'conversation', 'call')),
  owner_id      text NOT NULL,
  -- the reply or message it was sent with (attachment_ids); null until then
  attached_to   text,
  filename      text NOT NULL,
  content_type  text NOT NULL,
  size          bigint NOT NULL CHECK (size > 0),
  sha256        text NOT NULL,
  storage_key   text NOT NULL,
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- a ticket's or conversation's files, oldest first (the list), and a call's recording
CREATE INDEX attachments_owner_idx ON attachments (tenant_id, owner_type, owner_id, created_at, id);
-- the files of a reply or message (their reads and events)
CREATE INDEX attachments_attached_idx ON attachments (tenant_id, attached_to) WHERE attached_to IS NOT NULL;
