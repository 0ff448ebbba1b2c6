import { sql } from 'kysely';
import type { Executor } from '../db/schema';

/** Rows re-indexed per statement: each batch is a short transaction of its own. */
export const REINDEX_BATCH = 500;

/**
 * The tenant's rows indexed with the configuration of `locale` (schema/0036_search_locale.sql):
 * the tenant's `search_config` set, then each searchable table's rows of another configuration
 * rewritten REINDEX_BATCH at a time (their search_vector follows; a ticket's replies and a
 * conversation's messages are indexed again from the rows themselves). Only this tenant's rows are
 * read or written; run again, it finds nothing left. Returns the rows rewritten.
 */
export async function reindexTenantSearch(
  db: Executor,
  tenantId: string,
  locale: string | null,
): Promise<number> {
  const set = await sql<{ config: string }>`
    update tenants set search_config = search_config_of(${locale}) where id = ${tenantId}
    returning search_config::text as config`.execute(db);
  const config = set.rows[0]?.config;
  if (!config) return 0;
  const cfg = sql`${config}::regconfig`;
  const thread = {
    tickets: sql`, search_replies = coalesce((select setweight(search_text(${cfg}, string_agg(r.body, ' ')), 'C')
        from ticket_replies r where r.ticket_id = t.id), ''::tsvector)`,
    conversations: sql`, search_messages = coalesce((select setweight(search_text(${cfg}, string_agg(m.body, ' ')), 'C')
        from messages m where m.conversation_id = t.id), ''::tsvector)`,
    contacts: sql``,
    companies: sql``,
  };
  let total = 0;
  for (const [table, extra] of Object.entries(thread)) {
    for (;;) {
      const done = await sql`
        update ${sql.table(table)} t set search_config = ${cfg}${extra}
        where t.id in (select id from ${sql.table(table)} where tenant_id = ${tenantId}
          and search_config <> ${cfg} limit ${REINDEX_BATCH})`.execute(db);
      const n = Number(done.numAffectedRows ?? 0);
      total += n;
      if (n < REINDEX_BATCH) break;
    }
  }
  return total;
}
