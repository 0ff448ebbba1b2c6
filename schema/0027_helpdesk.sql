-- The help desk a team works in: teams that route, saved replies, ticket fields (docs/helpdesk.md).

-- A team and its members in rotation order. `last_pick` is the team's rotation state: the member
-- picked last. A pick reads it under a row lock (SELECT ... FOR UPDATE) and writes the next one in
-- the same transaction, so two assignments at once, on any number of processes, take turns.
CREATE TABLE teams (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '',
  routing     text NOT NULL DEFAULT 'manual' CHECK (routing IN ('manual', 'round_robin', 'balanced')),
  member_ids  text[] NOT NULL DEFAULT '{}',
  last_pick   text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX teams_tenant_created_idx ON teams (tenant_id, created_at, id);

-- Saved replies: `visibility` personal ones are read and used by `created_by` only.
CREATE TABLE saved_replies (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  title       text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  body        text NOT NULL,
  shortcut    text,
  visibility  text NOT NULL DEFAULT 'tenant' CHECK (visibility IN ('tenant', 'personal')),
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_replies_tenant_created_idx ON saved_replies (tenant_id, created_at, id);

-- Ticket field definitions: `key` unique in the tenant, what `custom_fields` on tickets is keyed by.
CREATE TABLE ticket_fields (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key         text NOT NULL CHECK (key ~ '^[a-z0-9_]{1,64}$'),
  label       text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 200),
  type        text NOT NULL CHECK (type IN ('text', 'number', 'date', 'checkbox', 'dropdown', 'multiselect')),
  options     text[] NOT NULL DEFAULT '{}',
  required    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, key)
);

ALTER TABLE tickets ADD COLUMN assignee_team_id text;
ALTER TABLE tickets ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}';
CREATE INDEX tickets_tenant_team_created_idx ON tickets (tenant_id, assignee_team_id, created_at DESC, id DESC)
  WHERE assignee_team_id IS NOT NULL;

-- The custom-field equality filters: a GIN index over `tenant:key=value` keys (one per value of a
-- multiselect), so `custom_fields.<key>=<value>` reads this tenant's matching rows only, as the
-- tag filters do (tenant ids carry no ':'). A value's text is its JSON scalar's text (`#>> '{}'`).
CREATE FUNCTION tenant_custom_field_keys(tenant text, fields jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ARRAY(
    SELECT tenant || ':' || f.key || '=' || (v.value #>> '{}')
      FROM jsonb_each(fields) AS f
      CROSS JOIN LATERAL jsonb_array_elements(
        CASE WHEN jsonb_typeof(f.value) = 'array' THEN f.value ELSE jsonb_build_array(f.value) END
      ) AS v
     WHERE jsonb_typeof(v.value) <> 'null'
  );
CREATE INDEX tickets_tenant_custom_fields_idx ON tickets USING gin (tenant_custom_field_keys(tenant_id, custom_fields));

-- balanced routing counts each member's open assignments
CREATE INDEX tickets_tenant_assignee_open_idx ON tickets (tenant_id, assignee_id)
  WHERE assignee_id IS NOT NULL AND status NOT IN ('resolved', 'closed');
CREATE INDEX conversations_tenant_assignee_open_idx ON conversations (tenant_id, assignee_user_id)
  WHERE assignee_user_id IS NOT NULL AND status IN ('open', 'waiting');
