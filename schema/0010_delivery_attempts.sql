-- Every attempt of a webhook delivery, for the delivery log's timeline: the delivery row
-- keeps only the latest attempt's outcome. Written by the same statement that records the outcome,
-- and only when it is recorded (the claim was still the writer's), so an attempt appears here iff
-- it counts in webhook_deliveries.attempts.
CREATE TABLE webhook_delivery_attempts (
  delivery_id     text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  -- 1..5, as counted by webhook_deliveries.attempts
  attempt         integer NOT NULL,
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- when the attempt ended (its response, error or timeout)
  attempted_at    timestamptz NOT NULL,
  -- the receiver's HTTP status; null when there was no response (timeout, refused destination, network)
  response_status integer,
  duration_ms     integer NOT NULL,
  error           text,
  PRIMARY KEY (delivery_id, attempt)
);
CREATE INDEX webhook_delivery_attempts_tenant_idx ON webhook_delivery_attempts (tenant_id);
