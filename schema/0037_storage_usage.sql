-- The bytes each tenant's files take, kept by triggers as files are written and removed. The
-- per-plan storage cap reads it on every upload: summing `attachments.size` there grew with the
-- tenant's files (a heap read per file), so an upload got slower with every file before it.
CREATE TABLE storage_usage (
  tenant_id  text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  bytes      bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0)
);

-- per statement, one row per tenant touched: a bulk delete (a ticket's files, a retention sweep)
-- costs one update per tenant, not one per file
CREATE FUNCTION storage_usage_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_usage (tenant_id, bytes)
  SELECT n.tenant_id, sum(n.size) FROM new_rows n GROUP BY n.tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes;
  RETURN NULL;
END $$;

CREATE FUNCTION storage_usage_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage s SET bytes = s.bytes - d.bytes
    FROM (SELECT o.tenant_id, sum(o.size) AS bytes FROM old_rows o GROUP BY o.tenant_id) d
   WHERE s.tenant_id = d.tenant_id;
  RETURN NULL;
END $$;

-- a file's size and tenant are never changed by the service; should a hand-made update change
-- them, the count follows (a row trigger: transition tables cannot name columns)
CREATE FUNCTION storage_usage_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET bytes = bytes - OLD.size WHERE tenant_id = OLD.tenant_id;
  INSERT INTO storage_usage (tenant_id, bytes) VALUES (NEW.tenant_id, NEW.size)
  ON CONFLICT (tenant_id) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes;
  RETURN NULL;
END $$;

CREATE TRIGGER attachments_storage_insert AFTER INSERT ON attachments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION storage_usage_on_insert();
CREATE TRIGGER attachments_storage_delete AFTER DELETE ON attachments REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION storage_usage_on_delete();
CREATE TRIGGER attachments_storage_update AFTER UPDATE OF size, tenant_id ON attachments
  FOR EACH ROW WHEN (OLD.size IS DISTINCT FROM NEW.size OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION storage_usage_on_update();

INSERT INTO storage_usage (tenant_id, bytes)
SELECT tenant_id, sum(size) FROM attachments GROUP BY tenant_id;
