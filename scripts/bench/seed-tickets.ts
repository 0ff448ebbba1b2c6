import { sql } from 'kysely';
import type { Db } from '../../shared/db/schema';

/** Bulk tickets for one tenant, spread over statuses, priorities, requesters and a year of minutes. */
export async function seedTickets(db: Db, tenantId: string, count: number): Promise<void> {
  await sql`
    INSERT INTO tickets (id, tenant_id, subject, description, status, priority, requester_id, assignee_id, tags,
                         created_by, created_at, updated_at)
    SELECT 'tkt_seed' || lpad(g::text, 9, '0') || substr(md5(${tenantId}), 1, 6),
           ${tenantId},
           'Ticket ' || g,
           'Generated for the benchmark',
           (ARRAY['new','open','pending','on_hold','resolved','closed'])[1 + g % 6],
           (ARRAY['low','medium','high','urgent'])[1 + g % 4],
           'eu_' || (g % 500),
           CASE WHEN g % 3 = 0 THEN 'agent_' || (g % 20) END,
           CASE WHEN g % 10 = 0 THEN ARRAY['vip','network'] ELSE ARRAY['network'] END,
           'bench',
           timestamptz '2026-01-01' + g * interval '1 minute',
           timestamptz '2026-01-01' + g * interval '1 minute'
    FROM generate_series(1, ${count}::int) AS g`.execute(db);
  await sql`ANALYZE tickets`.execute(db);
}
