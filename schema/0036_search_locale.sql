-- Full-text search in the tenant's language (docs/search.md, "Languages").
--
-- Each searchable row carries the text search configuration of its tenant's locale
-- (`search_config`, from the tenant's, set on insert) and its `search_vector` holds the text twice:
-- the words as that configuration stems them (`printers` -> `printer`, German `Häuser` -> `haus`)
-- and the words as written ('simple'), so an exact word, a stop word in a phrase (`"on hold"`), a
-- name in any script and a prefix (`print*`) match as they did. A tenant whose locale has no
-- configuration is indexed with 'simple' alone. When a tenant's locale changes its rows are
-- re-indexed in batches (shared/search/reindex.ts).

-- the one map from a locale's language (its first subtag) to a configuration; any other: 'simple'
CREATE TABLE search_locales (
  language text PRIMARY KEY,
  config   regconfig NOT NULL
);
-- only those the server ships (Postgres 15 has no estonian, for one): the others fall back to 'simple'
INSERT INTO search_locales (language, config)
SELECT v.language, v.config::regconfig FROM (VALUES
  ('ar', 'arabic'), ('hy', 'armenian'), ('eu', 'basque'), ('ca', 'catalan'), ('da', 'danish'),
  ('nl', 'dutch'), ('en', 'english'), ('et', 'estonian'), ('fi', 'finnish'), ('fr', 'french'),
  ('de', 'german'), ('el', 'greek'), ('hi', 'hindi'), ('hu', 'hungarian'), ('id', 'indonesian'),
  ('ga', 'irish'), ('it', 'italian'), ('lt', 'lithuanian'), ('ne', 'nepali'), ('no', 'norwegian'),
  ('nb', 'norwegian'), ('nn', 'norwegian'), ('pt', 'portuguese'), ('ro', 'romanian'),
  ('ru', 'russian'), ('sr', 'serbian'), ('es', 'spanish'), ('sv', 'swedish'), ('ta', 'tamil'),
  ('tr', 'turkish'), ('yi', 'yiddish')
) AS v (language, config)
WHERE EXISTS (SELECT 1 FROM pg_ts_config c WHERE c.cfgname = v.config);

CREATE FUNCTION search_config_of(locale text) RETURNS regconfig LANGUAGE sql STABLE PARALLEL SAFE
  RETURN coalesce(
    (SELECT config FROM search_locales WHERE language = lower(split_part(replace(coalesce(locale, ''), '_', '-'), '-', 1))),
    'simple'::regconfig);

-- the stemmed words and the words as written ('simple' once when the configuration is 'simple')
CREATE FUNCTION search_text(config regconfig, value text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN config = 'simple'::regconfig THEN to_tsvector('simple'::regconfig, coalesce(value, ''))
    ELSE to_tsvector(config, coalesce(value, '')) || to_tsvector('simple'::regconfig, coalesce(value, '')) END;

-- a tenant with no general settings has the locale 'en' (the settings' default)
ALTER TABLE tenants ADD COLUMN search_config regconfig NOT NULL DEFAULT search_config_of('en');
UPDATE tenants t SET search_config = search_config_of(coalesce(
  (SELECT s.settings->>'locale' FROM tenant_settings s WHERE s.tenant_id = t.id AND s.section = 'general'), 'en'));

CREATE FUNCTION search_config_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_config := coalesce((SELECT search_config FROM tenants WHERE id = NEW.tenant_id), 'simple'::regconfig);
  RETURN NEW;
END $$;

-- tickets
ALTER TABLE tickets ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple';
UPDATE tickets t SET search_config = n.search_config FROM tenants n
  WHERE n.id = t.tenant_id AND n.search_config <> 'simple'::regconfig;
CREATE TRIGGER tickets_search_config BEFORE INSERT ON tickets
  FOR EACH ROW EXECUTE FUNCTION search_config_on_insert();
ALTER TABLE tickets DROP COLUMN search_vector;
ALTER TABLE tickets ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(search_text(search_config, subject), 'A')
  || setweight(search_text(search_config, description), 'B')
  || search_replies
) STORED;
CREATE INDEX tickets_tenant_fts_idx ON tickets USING gin (search_scope(tenant_id), search_vector);
CREATE OR REPLACE FUNCTION ticket_replies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tickets SET search_replies = search_replies || setweight(search_text(search_config, NEW.body), 'C')
  WHERE id = NEW.ticket_id;
  RETURN NULL;
END $$;
UPDATE tickets t SET search_replies = r.v FROM (
  SELECT r.ticket_id, setweight(search_text(x.search_config, string_agg(r.body, ' ')), 'C') AS v
  FROM ticket_replies r JOIN tickets x ON x.id = r.ticket_id
  WHERE x.search_config <> 'simple'::regconfig GROUP BY r.ticket_id, x.search_config
) r WHERE r.ticket_id = t.id;

-- conversations
ALTER TABLE conversations ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple';
UPDATE conversations t SET search_config = n.search_config FROM tenants n
  WHERE n.id = t.tenant_id AND n.search_config <> 'simple'::regconfig;
CREATE TRIGGER conversations_search_config BEFORE INSERT ON conversations
  FOR EACH ROW EXECUTE FUNCTION search_config_on_insert();
ALTER TABLE conversations DROP COLUMN search_vector;
ALTER TABLE conversations ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(search_text(search_config, subject), 'A') || search_messages
) STORED;
CREATE INDEX conversations_tenant_fts_idx ON conversations USING gin (search_scope(tenant_id), search_vector);
CREATE OR REPLACE FUNCTION messages_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversations
  SET search_messages = search_messages || setweight(search_text(search_config, NEW.body), 'C')
  WHERE id = NEW.conversation_id;
  RETURN NULL;
END $$;
UPDATE conversations c SET search_messages = m.v FROM (
  SELECT m.conversation_id, setweight(search_text(x.search_config, string_agg(m.body, ' ')), 'C') AS v
  FROM messages m JOIN conversations x ON x.id = m.conversation_id
  WHERE x.search_config <> 'simple'::regconfig GROUP BY m.conversation_id, x.search_config
) m WHERE m.conversation_id = c.id;

-- contacts: the name stemmed too; an address, a domain and a number are not words of a language
ALTER TABLE contacts ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple';
UPDATE contacts t SET search_config = n.search_config FROM tenants n
  WHERE n.id = t.tenant_id AND n.search_config <> 'simple'::regconfig;
CREATE TRIGGER contacts_search_config BEFORE INSERT ON contacts
  FOR EACH ROW EXECUTE FUNCTION search_config_on_insert();
ALTER TABLE contacts DROP COLUMN search_vector;
ALTER TABLE contacts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(search_text(search_config, coalesce(first_name, '') || ' ' || coalesce(last_name, '')), 'A')
  || setweight(to_tsvector('simple'::regconfig, search_parts(email)), 'B')
  || setweight(to_tsvector('simple'::regconfig, search_digits(phone) || ' ' || search_digits(mobile)), 'B')
) STORED;
CREATE INDEX contacts_tenant_fts_idx ON contacts USING gin (search_scope(tenant_id), search_vector);

-- companies
ALTER TABLE companies ADD COLUMN search_config regconfig NOT NULL DEFAULT 'simple';
UPDATE companies t SET search_config = n.search_config FROM tenants n
  WHERE n.id = t.tenant_id AND n.search_config <> 'simple'::regconfig;
CREATE TRIGGER companies_search_config BEFORE INSERT ON companies
  FOR EACH ROW EXECUTE FUNCTION search_config_on_insert();
ALTER TABLE companies DROP COLUMN search_vector;
ALTER TABLE companies ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(search_text(search_config, name), 'A')
  || setweight(to_tsvector('simple'::regconfig, search_parts(domain)), 'B')
) STORED;
CREATE INDEX companies_tenant_fts_idx ON companies USING gin (search_scope(tenant_id), search_vector);
