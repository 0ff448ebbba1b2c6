-- Contacts, companies and knowledge-base articles (dashboard v2, help center).
-- conversation_count / contact_count are kept true in the transactions that change them:
-- contacts.conversation_count and companies.conversation_count by the conversations function,
-- companies.contact_count by the contacts function.

CREATE TABLE companies (
  id                 text PRIMARY KEY,
  tenant_id          text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name               text NOT NULL,
  domain             text,
  industry           text,
  logo_url           text,
  notes              text,
  plan               text,
  size               text,
  sla_tier           text,
  website            text,
  contact_count      integer NOT NULL DEFAULT 0,
  conversation_count integer NOT NULL DEFAULT 0,
  monthly_spend      double precision,
  custom_attrs       jsonb NOT NULL DEFAULT '{}'::jsonb,
  tags               text[] NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at         timestamptz
);
CREATE INDEX companies_tenant_created_idx ON companies (tenant_id, created_at DESC, id DESC);

CREATE TABLE contacts (
  id                       text PRIMARY KEY,
  tenant_id                text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  external_id              text,
  first_name               text,
  last_name                text,
  email                    text,
  phone                    text,
  role                     text,
  locale                   text,
  timezone                 text,
  company_id               text REFERENCES companies (id) ON DELETE SET NULL,
  conversation_count       integer NOT NULL DEFAULT 0,
  custom_attrs             jsonb NOT NULL DEFAULT '{}'::jsonb,
  tags                     text[] NOT NULL DEFAULT '{}',
  unsubscribed_from_emails boolean NOT NULL DEFAULT false,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  deleted_at               timestamptz,
  last_seen_at             timestamptz
);
CREATE INDEX contacts_tenant_created_idx ON contacts (tenant_id, created_at DESC, id DESC);
-- soft-deleted rows must not block re-creating the same contact: uniqueness covers live rows only
CREATE UNIQUE INDEX contacts_tenant_email_live_idx ON contacts (tenant_id, lower(email))
  WHERE deleted_at IS NULL AND email IS NOT NULL;
CREATE UNIQUE INDEX contacts_tenant_external_live_idx ON contacts (tenant_id, external_id)
  WHERE deleted_at IS NULL AND external_id IS NOT NULL;

CREATE TABLE kb_articles (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  title        text NOT NULL,
  body         text NOT NULL DEFAULT '',
  -- draft | published | archived
  status       text NOT NULL DEFAULT 'draft',
  -- native (help center) | itsm (upstream provider)
  provider_id  text NOT NULL DEFAULT 'native',
  url          text,
  tags         text[] NOT NULL DEFAULT '{}',
  category     text,
  language     text NOT NULL DEFAULT 'en',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kb_articles_tenant_status_idx ON kb_articles (tenant_id, status, updated_at DESC);
