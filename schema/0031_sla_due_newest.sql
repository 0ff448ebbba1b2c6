-- `sla_due_before` in the lists' default order (newest first): the records with a due time, newest
-- first, per tenant. Without it the planner may walk the tenant's whole created_at index looking
-- for a page of due rows (the earliest due times belong to the oldest open records, so the newest
-- rows it starts from rarely match); this one holds only the records still in a queue (a due time
-- not yet met), so a first page reads at most the tenant's open queue, not the tenant.
CREATE INDEX tickets_tenant_sla_due_created_idx ON tickets (tenant_id, created_at DESC, id DESC)
  WHERE sla_due_at IS NOT NULL;
CREATE INDEX conversations_tenant_sla_due_created_idx ON conversations (tenant_id, created_at DESC, id DESC)
  WHERE sla_due_at IS NOT NULL;
