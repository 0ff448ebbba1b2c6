-- A test delivery (POST /api/v2/webhooks/{id}/test: an event's documented example, no outbox event)
-- is marked as one: the delivery log shows `test`, and every attempt carries `X-Webhook-Test: true`
-- so a receiver can tell it from a real event without reading its data. A redelivery of a test is a
-- test too (the re-sends copy the column). Existing rows: only test deliveries had no event.
ALTER TABLE webhook_deliveries ADD COLUMN is_test boolean NOT NULL DEFAULT false;
UPDATE webhook_deliveries SET is_test = true WHERE event_id IS NULL;
