-- Contacts, companies, contact sync and knowledge-base articles (dashboard v2, help center).
-- conversation_count / contact_count are kept true in the transactions that change them:
-- contacts.conversation_count and companies.conversation_count by the conversations function,
-- companies.contact_count by the contacts function (recomputed from live contacts on every
-- contact create / delete / restore / company change).
-- Timestamps the API filters on are millisecond precision (timestamptz(3)), so a value read from
-- a response can be sent back as `updated_since` and match exactly.

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
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at         timestamptz(3)
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
  created_at               timestamptz(3) NOT NULL DEFAULT now(),
  updated_at               timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at               timestamptz(3),
  last_seen_at             timestamptz(3),
  -- contact sync: the upstream identity is (sync_provider, external_id); NULL = made in the dashboard
  sync_provider            text CHECK (sync_provider IN ('helpdesk_a', 'helpdesk_b')),
  -- false once a full sync no longer sees the contact upstream (reconciliation)
  sync_active              boolean NOT NULL DEFAULT true,
  mobile                   text,
  -- free-text company name from an upstream helpdesk (used when company_id is null)
  company_name             text
);
CREATE INDEX contacts_tenant_created_idx ON contacts (tenant_id, created_at DESC, id DESC);
CREATE INDEX contacts_tenant_updated_idx ON contacts (tenant_id, updated_at, id);
CREATE INDEX contacts_company_idx ON contacts (company_id) WHERE company_id IS NOT NULL;
-- soft-deleted rows must not block re-creating the same contact: uniqueness covers live rows only
CREATE UNIQUE INDEX contacts_tenant_email_live_idx ON contacts (tenant_id, lower(email))
  WHERE deleted_at IS NULL AND email IS NOT NULL;
-- external ids are unique per origin (dashboard, or each sync provider) among live rows
CREATE UNIQUE INDEX contacts_tenant_external_live_idx
  ON contacts (tenant_id, coalesce(sync_provider, ''), external_id)
  WHERE deleted_at IS NULL AND external_id IS NOT NULL;

-- One connection per tenant and upstream helpdesk; the API token is AES-GCM sealed.
CREATE TABLE contact_sync_connections (
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider        text NOT NULL CHECK (provider IN ('helpdesk_a', 'helpdesk_b')),
  base_url        text NOT NULL,
  token_sealed    text NOT NULL,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, provider)
);

CREATE TABLE contact_sync_runs (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider     text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('full', 'incremental')),
  -- running | succeeded | failed
  status       text NOT NULL DEFAULT 'running',
  pages        integer NOT NULL DEFAULT 0,
  fetched      integer NOT NULL DEFAULT 0,
  created      integer NOT NULL DEFAULT 0,
  updated      integer NOT NULL DEFAULT 0,
  unchanged    integer NOT NULL DEFAULT 0,
  deactivated  integer NOT NULL DEFAULT 0,
  skipped      integer NOT NULL DEFAULT 0,
  error        text,
  triggered_by text NOT NULL,
  started_at   timestamptz(3) NOT NULL DEFAULT now(),
  finished_at  timestamptz(3)
);
CREATE INDEX contact_sync_runs_tenant_idx ON contact_sync_runs (tenant_id, started_at DESC, id DESC);

CREATE TABLE kb_articles (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  title        text NOT NULL,
  body         text NOT NULL DEFAULT '',
  -- draft | published | archived
  status       text NOT NULL DEFAULT 'draft',
  -- native (help center) | itsm (upstream provider): 'native' whenever the help center is a destination
  provider_id  text NOT NULL DEFAULT 'native',
  url          text,
  tags         text[] NOT NULL DEFAULT '{}',
  category     text,
  language     text NOT NULL DEFAULT 'en',
  -- destinations asked for at creation
  destinations text[] NOT NULL DEFAULT '{native}',
  created_by   text,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  published_at timestamptz(3)
);
CREATE INDEX kb_articles_tenant_status_idx ON kb_articles (tenant_id, status, updated_at DESC);

-- One row per destination write attempt of an article (native help center, upstream itsm).
CREATE TABLE kb_publications (
  article_id   text NOT NULL REFERENCES kb_articles (id) ON DELETE CASCADE,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider_id  text NOT NULL CHECK (provider_id IN ('native', 'itsm')),
  -- published | failed
  status       text NOT NULL,
  external_id  text,
  url          text,
  error        text,
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (article_id, provider_id)
);
