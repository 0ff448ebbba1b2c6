-- Full-text search (GET /api/v1/tickets/search, GET /api/v2/search: docs/search.md).
--
-- Each searchable table carries a `search_vector` the database keeps: a stored generated column
-- over the row's own text, plus, where a record's text lives in another table (a ticket's replies,
-- a conversation's messages), a tsvector that a trigger appends each new reply or message to
-- (replies and messages are never edited, so appending keeps the vector exact).
--
-- The 'simple' configuration: words are lower-cased and matched as written, in every language the
-- same (no stemming, no stop words), so `"on hold"` and a name in any script match as typed and a
-- prefix (`print*`) covers the word's other forms.
--
-- Weights: A for the subject or name, B for the description or the other fields, C for replies and
-- messages; ts_rank weighs them 1.0, 0.4, 0.2 (its defaults for A, B, C), so a word in the subject
-- ranks above the same word in a reply.
--
-- Each GIN index starts with the tenant (btree_gin, as the `q` trigram indexes: search_scope() so
-- that plans for the other filters are not drawn to it), so a query reads only its tenant's entries.

-- contact and company fields: an address or domain also as its parts
CREATE FUNCTION search_parts(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(value, '') || ' ' || coalesce(regexp_replace(value, '[@.+_-]+', ' ', 'g'), '');
-- the digits, and each of their endings of 6 digits or more, so a number is found without its
-- country code as typed (`912345678` finds `+351 912 345 678`)
CREATE FUNCTION search_digits(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(value, '') || ' ' || array_to_string(ARRAY(
    SELECT substr(d, i) FROM (SELECT regexp_replace(coalesce(value, ''), '[^0-9]+', '', 'g') AS d) digits,
      generate_series(1, greatest(length(d) - 5, 1)) AS i
  ), ' ');

ALTER TABLE tickets ADD COLUMN search_replies tsvector NOT NULL DEFAULT ''::tsvector;
ALTER TABLE tickets ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, subject), 'A')
  || setweight(to_tsvector('simple'::regconfig, description), 'B')
  || search_replies
) STORED;
CREATE INDEX tickets_tenant_fts_idx ON tickets USING gin (search_scope(tenant_id), search_vector);

CREATE FUNCTION ticket_replies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tickets SET search_replies = search_replies || setweight(to_tsvector('simple'::regconfig, NEW.body), 'C')
  WHERE id = NEW.ticket_id;
  RETURN NULL;
END $$;
CREATE TRIGGER ticket_replies_search AFTER INSERT ON ticket_replies
  FOR EACH ROW EXECUTE FUNCTION ticket_replies_search();
UPDATE tickets t SET search_replies = r.v FROM (
  SELECT ticket_id, setweight(to_tsvector('simple'::regconfig, string_agg(body, ' ')), 'C') AS v
  FROM ticket_replies GROUP BY ticket_id
) r WHERE r.ticket_id = t.id;

ALTER TABLE conversations ADD COLUMN search_messages tsvector NOT NULL DEFAULT ''::tsvector;
ALTER TABLE conversations ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, coalesce(subject, '')), 'A') || search_messages
) STORED;
CREATE INDEX conversations_tenant_fts_idx ON conversations USING gin (search_scope(tenant_id), search_vector);

CREATE FUNCTION messages_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversations
  SET search_messages = search_messages || setweight(to_tsvector('simple'::regconfig, NEW.body), 'C')
  WHERE id = NEW.conversation_id;
  RETURN NULL;
END $$;
CREATE TRIGGER messages_search AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION messages_search();
UPDATE conversations c SET search_messages = m.v FROM (
  SELECT conversation_id, setweight(to_tsvector('simple'::regconfig, string_agg(body, ' ')), 'C') AS v
  FROM messages GROUP BY conversation_id
) m WHERE m.conversation_id = c.id;
-- `tag:` in a search over conversations, as tickets, contacts and companies already have it
CREATE INDEX conversations_tenant_tags_idx ON conversations USING gin (tenant_tag_keys(tenant_id, tags));

ALTER TABLE contacts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, coalesce(first_name, '') || ' ' || coalesce(last_name, '')), 'A')
  || setweight(to_tsvector('simple'::regconfig, search_parts(email)), 'B')
  || setweight(to_tsvector('simple'::regconfig, search_digits(phone) || ' ' || search_digits(mobile)), 'B')
) STORED;
CREATE INDEX contacts_tenant_fts_idx ON contacts USING gin (search_scope(tenant_id), search_vector);

ALTER TABLE companies ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, name), 'A')
  || setweight(to_tsvector('simple'::regconfig, search_parts(domain)), 'B')
) STORED;
CREATE INDEX companies_tenant_fts_idx ON companies USING gin (search_scope(tenant_id), search_vector);
