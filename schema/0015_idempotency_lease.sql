-- Idempotency-Keys held under a lease: while a record is in_progress its expires_at is the end of
-- the lease (renewed by the request holding it), and lease_token names that holder, so a process
-- that lost its lease can no longer complete, release or commit under the key.
ALTER TABLE idempotency_keys ADD COLUMN lease_token text;
