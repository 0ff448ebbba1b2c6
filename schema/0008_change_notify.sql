-- Other processes keep a read cache of tickets (shared/db/row-cache.ts): a statement that changes
-- tickets tells them after it commits. One notification per statement and channel, folded into
-- one per transaction by Postgres; the payload names the table.
CREATE FUNCTION notify_watched_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('itsm_watched_change', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER tickets_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tickets
  FOR EACH STATEMENT EXECUTE FUNCTION notify_watched_change();
