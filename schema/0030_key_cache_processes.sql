-- The processes whose in-process API-key cache may serve hits (shared/db/adapters/pg.ts). Each one
-- renews its row from its LISTEN session while that session works; a revoke, rotation or deletion
-- reads the live rows and answers once each of those processes has acknowledged evicting the key
-- (or once a lapsed lease has made it stand its cache aside), so the cost of revocation is paid by
-- the revoke instead of a read of the key's row on every cache hit.
CREATE TABLE key_cache_processes (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
