// The SLA breach check on Workers: a ticket's first-response due time rides a delayed QStash
// callback (the stand-in of globalSetup, which signs it as QStash does) into the sla function, which
// records the breach with no request touching the ticket and emits `ticket.updated` carrying `sla`.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { signQStashCallback } from '../../scripts/edge/qstash';
import { bindings, call, edgeTenant, eventually, inspect } from './support';

const PATH = '/api/internal/sla/qstash';
const callbackUrl = () => `${bindings().PUBLIC_BASE_URL}${PATH}`;

interface Logged {
  publishes: { destination: string; notBefore: string | null; body: string }[];
  deliveries: { destination: string; status: number }[];
}

const direct = new pg.Pool({ connectionString: inject('edgeDatabaseUrl'), max: 1 });
afterAll(() => direct.end());

describe('SLA breaches on workerd, by QStash delayed callbacks', () => {
  it('a first response not given in time is recorded breached when its callback fires; one given in time is not', async () => {
    const t = await edgeTenant();
    const policy = await call('POST', '/api/v2/sla-policies', {
      bearer: t.adminToken,
      body: { name: 'One minute', first_response_minutes: 1 },
    });
    expect(policy.status, policy.text).toBe(201);
    const key = await t.key(['tickets:read', 'tickets:write']);
    const late = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Nobody answers' } });
    const answered = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Answered' } });
    expect(late.status, late.text).toBe(201);
    const due = late.body.sla.first_response_due_at as string;
    expect(late.body.sla).toMatchObject({ policy_id: policy.body.id, first_response_breached: false });
    const reply = await call('POST', `/api/v1/tickets/${answered.body.id}/replies`, {
      apiKey: key,
      body: { body: 'On it', is_public: true },
    });
    expect(reply.status, reply.text).toBe(201);

    // the check rides a delayed callback at the due time, not a loop
    const published = await eventually(async () => {
      const log = await inspect<Logged>('/qstash');
      return log.publishes.find(
        (p) => p.destination === callbackUrl() && Number(p.notBefore) === Math.ceil(Date.parse(due) / 1000),
      );
    });
    expect(JSON.parse(published.body)).toEqual({ check_at: due });
    expect(
      (await call('GET', `/api/v1/tickets/${late.body.id}`, { apiKey: key })).body.sla
        .first_response_breached,
    ).toBe(false);

    // nothing touches the ticket: the callback records the breach (polled, up to two minutes)
    const breached = await eventually(
      async () => {
        const read = await call('GET', `/api/v1/tickets/${late.body.id}`, { apiKey: key });
        return read.body.sla.first_response_breached ? read.body : undefined;
      },
      600,
      200,
    );
    expect(breached.sla).toMatchObject({ first_response_breached: true, first_response_due_at: due });
    const other = await call('GET', `/api/v1/tickets/${answered.body.id}`, { apiKey: key });
    expect(other.body.sla.first_response_breached).toBe(false);
    expect(other.body.sla.first_response_at).not.toBeNull();
    const list = await call('GET', '/api/v1/tickets?sla_breached=true', { apiKey: key });
    expect(list.body.tickets.map((x: { id: string }) => x.id)).toEqual([late.body.id]);

    // the event: one ticket.updated carrying sla, dated when the breach fell due
    const { rows } = await direct.query<{ payload: any; created_at: Date }>(
      `SELECT payload, created_at FROM events
        WHERE tenant_id = $1 AND event_type = 'ticket.updated' AND payload->'ticket'->>'id' = $2`,
      [t.id, late.body.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payload.ticket.sla.first_response_breached).toBe(true);
    expect(rows[0]!.payload.changes).toEqual({ 'sla.first_response_breached': { from: false, to: true } });
    expect(rows[0]!.created_at.toISOString()).toBe(due);
  }, 180_000);

  it('a forged, replayed-elsewhere or unsigned callback is refused 401 and records nothing', async () => {
    const body = JSON.stringify({ check_at: new Date().toISOString() });
    const key = bindings().QSTASH_CURRENT_SIGNING_KEY as string;
    const cases: Record<string, string>[] = [
      {},
      { 'Upstash-Signature': await signQStashCallback('sig_not_ours', callbackUrl(), body) },
      // signed for the webhooks callback: not valid for this one
      {
        'Upstash-Signature': await signQStashCallback(
          key,
          `${bindings().PUBLIC_BASE_URL}/api/internal/webhooks/qstash`,
          body,
        ),
      },
      {
        'Upstash-Signature': await signQStashCallback(
          key,
          callbackUrl(),
          JSON.stringify({ check_at: '2020-01-01T00:00:00.000Z' }),
        ),
      },
    ];
    for (const headers of cases) {
      const res = await call('POST', PATH, {
        rawBody: body,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid QStash signature' });
    }
    // signed as QStash signs: accepted
    const ok = await call('POST', PATH, {
      rawBody: body,
      headers: {
        'Content-Type': 'application/json',
        'Upstash-Signature': await signQStashCallback(key, callbackUrl(), body),
      },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(typeof ok.body.recorded).toBe('number');
    // a callback ahead of its time is handed back for QStash to retry
    const early = JSON.stringify({ check_at: new Date(Date.now() + 60_000).toISOString() });
    const res = await call('POST', PATH, {
      rawBody: early,
      headers: {
        'Content-Type': 'application/json',
        'Upstash-Signature': await signQStashCallback(key, callbackUrl(), early),
      },
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Check not due yet' });
  });
});
