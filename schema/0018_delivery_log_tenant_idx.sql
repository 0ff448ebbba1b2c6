-- The delivery log (GET /api/v1/webhooks/{id}/deliveries) is read by tenant and webhook together.
-- With an index on the webhook alone, the planner multiplied the two conditions as if independent
-- (a webhook belongs to one tenant), underestimated the rows and could pick the tenant's created_at
-- index plus a sort, whose cost grows with the rows older than the page. Leading with the tenant,
-- then the webhook, then the log's order makes a first page, a `before` page and a cursor page one
-- range read of this index, and keeps every read of the log tenant-first. It replaces the
-- webhook-only index (every query of deliveries by webhook also names the tenant), so the table
-- keeps as many indexes as before.
CREATE INDEX webhook_deliveries_tenant_log_idx
  ON webhook_deliveries (tenant_id, webhook_id, created_at DESC, id DESC);
DROP INDEX webhook_deliveries_log_idx;
