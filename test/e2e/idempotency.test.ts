// Keyed writes on the edge: each commits its answer with its work (a ticket's in its one statement,
// the others in a transaction opened only because the request carries a key, over the Neon
// driver's WebSocket), and a retry with the same key is that answer, byte for byte, with
// Idempotent-Replayed; the work ran once.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type EdgeTenant, edgeTenant } from './support';

let tenant: EdgeTenant;
let apiKey: string;
const run = Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  tenant = await edgeTenant();
  apiKey = await tenant.key([
    'tickets:read',
    'tickets:write',
    'conversations:read',
    'conversations:write',
    'config:write',
  ]);
});

const keyed = (method: string, path: string, body: unknown, key: string) =>
  call(method, path, { apiKey, body, headers: { 'Idempotency-Key': `${run}-${key}` } });

describe('Idempotency-Key on the edge', () => {
  it.each([
    ['POST', '/api/v1/tickets', { subject: 'Keyed on the edge' }, '/api/v1/tickets', 'tickets'],
    [
      'POST',
      '/api/v1/conversations',
      { channel: 'email', subject: 'Keyed on the edge' },
      '/api/v1/conversations',
      'conversations',
    ],
  ] as const)('%s %s: the retry is the first answer and one row', async (method, path, body, list, field) => {
    const first = await keyed(method, path, body, path);
    expect(first.status, first.text).toBe(201);
    const retry = await keyed(method, path, body, path);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const rows = await call('GET', `${list}?limit=100`, { apiKey });
    expect(rows.status, rows.text).toBe(200);
    expect(rows.body[field].filter((r: { id: string }) => r.id === first.body.id)).toHaveLength(1);
    expect(rows.body.total).toBe(1);
  });

  it('PATCH /api/v1/config/general: the retry is the first answer, not a second change', async () => {
    const body = { timezone: 'Europe/Lisbon' };
    const first = await keyed('PATCH', '/api/v1/config/general', body, 'general');
    expect(first.status, first.text).toBe(200);
    const retry = await keyed('PATCH', '/api/v1/config/general', body, 'general');
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
});
