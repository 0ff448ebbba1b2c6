-- What each attempt of a webhook delivery sent and got back, so a failed delivery can be debugged from
-- the product: the request exactly as sent (headers and body) and the receiver's answer (status,
-- headers, the first 4,096 bytes of its body and whether there was more). The content is cleared
-- (set to NULL) WEBHOOK_ATTEMPT_RETENTION_DAYS after the attempt by the delivery worker; the attempt's
-- row itself stays, so the timeline outlives its content. NULL request_headers: nothing was sent
-- (refused destination), the content was cleared, or the attempt predates this migration.
ALTER TABLE webhook_delivery_attempts
  ADD COLUMN request_headers jsonb,
  ADD COLUMN request_body text,
  -- NULL with response_status NULL: no answer came
  ADD COLUMN response_headers jsonb,
  ADD COLUMN response_body text,
  ADD COLUMN response_body_truncated boolean;
-- the retention sweep's scan: only attempts whose content is still kept, oldest first
CREATE INDEX webhook_delivery_attempts_content_idx ON webhook_delivery_attempts (attempted_at)
  WHERE request_headers IS NOT NULL OR response_headers IS NOT NULL;

-- What an endpoint is for, in the admin's words (shown by the console and every read).
ALTER TABLE webhooks ADD COLUMN description text CHECK (char_length(description) <= 500);
