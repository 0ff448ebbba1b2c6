-- Every process keeps a short in-process cache of verified API keys (shared/auth/key-verify.ts). A
-- revoke, rotation (which revokes the old key), deletion or change of scopes or expiry tells the
-- other processes after it commits, naming the key, so each evicts it at once rather than at the
-- cache's TTL. A trigger rather than the application: the notice is part of the commit itself, so
-- no crash between the two can leave another process serving the key.
CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('itsm_api_key_change', OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_notify_change AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
     OR OLD.key_hash IS DISTINCT FROM NEW.key_hash
     OR OLD.scopes IS DISTINCT FROM NEW.scopes
     OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
     OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION notify_api_key_change();

CREATE TRIGGER api_keys_notify_delete AFTER DELETE ON api_keys FOR EACH ROW
  EXECUTE FUNCTION notify_api_key_change();
