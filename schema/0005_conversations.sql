-- Conversations (agent inbox, widget chat, email and WhatsApp inbound), their messages, and
-- conversation transcript exports. Timestamps are written by the application with millisecond
-- precision, so `updated_since` / `sort=updated_at` cursors compare exactly.

CREATE TABLE conversations (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  contact_id       text REFERENCES contacts (id) ON DELETE SET NULL,
  subject          text,
  status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'waiting', 'resolved', 'closed')),
  channel          text NOT NULL CHECK (channel IN ('email', 'widget', 'whatsapp', 'phone', 'api')),
  priority         text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  assignee_user_id text,
  assignee_team_id text,
  tags             text[] NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_tenant_created_idx ON conversations (tenant_id, created_at DESC, id DESC);
CREATE INDEX conversations_tenant_updated_idx ON conversations (tenant_id, updated_at, id);
-- inbound routing: the live conversation of a contact on a channel
CREATE INDEX conversations_contact_channel_idx ON conversations (tenant_id, contact_id, channel, status);

CREATE TABLE messages (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  sender_type     text NOT NULL CHECK (sender_type IN ('contact', 'agent', 'ai')),
  sender_id       text,
  body            text NOT NULL,
  content_type    text NOT NULL DEFAULT 'text' CHECK (content_type IN ('text', 'html', 'markdown')),
  is_internal     boolean NOT NULL DEFAULT false,
  source          text NOT NULL CHECK (source IN ('dashboard', 'widget', 'whatsapp', 'email')),
  -- outbound only: queued -> sent | failed; skipped when no sender is configured for the channel
  delivery_status text CHECK (delivery_status IN ('queued', 'sent', 'failed', 'skipped')),
  delivery_error  text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_conversation_idx ON messages (tenant_id, conversation_id, created_at, id);

CREATE TABLE conversation_exports (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  conversation_id  text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  format           text NOT NULL CHECK (format IN ('json', 'text')),
  status           text NOT NULL CHECK (status IN ('completed', 'failed')),
  include_internal boolean NOT NULL DEFAULT false,
  message_count    integer NOT NULL DEFAULT 0,
  content          text NOT NULL,
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_exports_conversation_idx ON conversation_exports (tenant_id, conversation_id, created_at DESC);
