/**
 * What a ticket's creation reads of its tenant before it writes (shared/tickets/tickets.ts,
 * `ticketCreationReads`): the custom field definitions and the SLA policies in one statement, so
 * on the edge a creation waits for one subrequest fewer. The answer is unchanged: a bad custom
 * field is still a 422, and the matching policy still sets the ticket's SLA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('a ticket creation reads its tenant once', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  const statements: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key(['tickets:read', 'tickets:write']);
    // every statement the runtime's database handle runs outside a transaction
    const executor = h.runtime.services.db.getExecutor();
    const run = executor.executeQuery.bind(executor);
    (executor as { executeQuery: unknown }).executeQuery = ((query, queryId) => {
      statements.push(query.sql);
      return run(query, queryId);
    }) as typeof executor.executeQuery;
    await h.db
      .insertInto('ticket_fields')
      .values({
        id: `tf_${t.id}`,
        tenant_id: t.id,
        key: 'plan',
        label: 'Plan',
        type: 'dropdown',
        options: ['gold'],
      })
      .execute();
    await h.db
      .insertInto('sla_policies')
      .values({
        id: `sla_${t.id}`,
        tenant_id: t.id,
        name: 'Urgent',
        position: 0,
        conditions: { priorities: ['urgent'] },
        first_response_minutes: 30,
      })
      .execute();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const reads = () => statements.filter((s) => /"?(ticket_fields|sla_policies)"?/.test(s));

  it('reads the field definitions and the SLA policies in one statement', async () => {
    statements.length = 0;
    const res = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'one read', priority: 'urgent', custom_fields: { plan: 'gold' } },
    });
    expect(res.status).toBe(201);
    // the urgent policy matched: the ticket carries its SLA, chosen from the same read
    expect(res.body.sla?.policy_id).toBe(`sla_${t.id}`);
    const tenantReads = reads();
    expect(tenantReads).toHaveLength(1);
    expect(tenantReads[0]).toMatch(/ticket_fields/);
    expect(tenantReads[0]).toMatch(/sla_policies/);
    // a ticket the policy does not match gets none
    const low = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'low', priority: 'low' },
    });
    expect(low.status).toBe(201);
    expect(low.body.sla).toBeNull();
  });

  it('still refuses a bad custom field 422 and writes nothing', async () => {
    const res = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'bad field', custom_fields: { plan: 'platinum' } },
    });
    expect(res.status).toBe(422);
    const rows = await h.db
      .selectFrom('tickets')
      .select('id')
      .where('tenant_id', '=', t.id)
      .where('subject', '=', 'bad field')
      .execute();
    expect(rows).toEqual([]);
  });
});
