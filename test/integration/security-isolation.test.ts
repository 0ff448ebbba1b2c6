/**
 * Tenant isolation matrix: every route of the manifest that takes an id, every verb, called by
 * tenant B (an API key with every scope, and a tenant_admin session) with tenant A's real ids.
 * Nothing may succeed, nothing of A may leak into the answer, and none of A's rows may change.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFunctionApps } from '../../scripts/embedded';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const MARKER = 'TENANT-A-PRIVATE-MARKER';

/** Which table holds the row a path parameter names, by route prefix. */
const ID_SOURCES: [RegExp, Record<string, string>][] = [
  [/^\/api\/v1\/api-keys\//, { key_id: 'api_keys' }],
  [/^\/api\/v1\/tickets\/[^/]+\/attachments\//, { ticket_id: 'tickets', attachment_id: 'attachments' }],
  [/^\/api\/v1\/conversations\/[^/]+\/attachments\//, { id: 'conversations', attachment_id: 'attachments' }],
  [/^\/api\/v1\/tickets\//, { ticket_id: 'tickets' }],
  [/^\/api\/v2\/business-hours\//, { id: 'business_hours' }],
  [/^\/api\/v2\/sla-policies\//, { id: 'sla_policies' }],
  [/^\/api\/v2\/teams\//, { team_id: 'teams' }],
  [/^\/api\/v2\/saved-replies\//, { saved_reply_id: 'saved_replies' }],
  [/^\/api\/v2\/ticket-fields\//, { field_id: 'ticket_fields' }],
  [/^\/api\/v1\/calls\//, { call_id: 'calls' }],
  [/^\/api\/v[12]\/webhooks\//, { id: 'webhooks', delivery_id: 'webhook_deliveries' }],
  [/^\/api\/v[12]\/conversations\//, { id: 'conversations', export_id: 'conversation_exports' }],
  [/^\/api\/v2\/contacts\//, { contact_id: 'contacts' }],
  [/^\/api\/v2\/companies\//, { company_id: 'companies' }],
  [/^\/api\/v2\/kb\//, { article_id: 'kb_articles' }],
  [/^\/api\/v1\/requesters\//, { id: 'end_users' }],
  [/^\/api\/v1\/tenant\/users\//, { id: 'tenant_users' }],
  // an invitation's id is its (pending) tenant user's
  [/^\/api\/v1\/tenant\/invitations\//, { id: 'tenant_users' }],
  [/^\/api\/v1\/tenant\/exports\//, { id: 'export_jobs' }],
  [/^\/api\/v1\/tenants\//, { tenant_id: 'tenants' }],
  [/^\/api\/sync\/contacts\/runs\//, { run_id: 'contact_sync_runs' }],
];
/** Routes whose ids are not tenant-private by design, or that take no tenant credential. */
const OUT_OF_SCOPE = [
  /^\/api\/v1\/help-center\//,
  /^\/api\/internal\//,
  /^\/api\/v1\/app\//,
  /:provider/,
  /:invoice_id/,
  /^\/docs/,
  /^\/console/, // static files of the console: no tenant data
  // a signed download link: its signature, not a credential, names the tenant (files-*.test.ts)
  /^\/api\/v1\/files\//,
];

describe.skipIf(postgresUnavailable())('tenant isolation matrix', () => {
  let h: Harness;
  let a: TestTenant;
  let b: TestTenant;
  let receiver: HttpsReceiver;
  const idsOfA = new Map<string, string>();

  beforeAll(async () => {
    trustTestCertificate();
    receiver = await startHttpsReceiver();
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost,127.0.0.1' });
    a = await h.tenant({ name: 'A' });
    b = await h.tenant({ name: 'B' });
    const keyA = await a.key([...SCOPE_CATALOG]);
    const asA = { apiKey: keyA };
    const adminA = { bearer: a.adminToken };
    const must = async (p: Promise<{ status: number; text: string; body: any }>) => {
      const res = await p;
      if (res.status >= 300) throw new Error(`seeding tenant A failed: ${res.status} ${res.text}`);
      return res.body;
    };
    const ticket = await must(
      h.request('POST', '/api/v1/tickets', { ...asA, body: { subject: MARKER, description: MARKER } }),
    );
    await must(h.request('POST', `/api/v1/tickets/${ticket.id}/replies`, { ...asA, body: { body: MARKER } }));
    await must(
      h.request('POST', `/api/v1/tickets/${ticket.id}/attachments?filename=a.txt`, {
        ...asA,
        headers: { 'Content-Type': 'text/plain' },
        rawBody: MARKER,
      }),
    );
    await must(
      h.request('POST', '/api/v2/business-hours', {
        ...adminA,
        body: {
          name: MARKER,
          timezone: 'Europe/Berlin',
          intervals: [{ day: 1, start: '09:00', end: '17:00' }],
        },
      }),
    );
    await must(
      h.request('POST', '/api/v2/sla-policies', {
        ...adminA,
        body: { name: MARKER, first_response_minutes: 60 },
      }),
    );
    await must(h.request('POST', '/api/v2/teams', { ...adminA, body: { name: MARKER, member_ids: [] } }));
    await must(
      h.request('POST', '/api/v2/saved-replies', {
        ...adminA,
        body: { title: MARKER, body: MARKER, visibility: 'tenant' },
      }),
    );
    await must(
      h.request('POST', '/api/v2/ticket-fields', {
        ...adminA,
        body: { key: 'isolation', label: MARKER, type: 'text', required: false },
      }),
    );
    await must(
      h.request('POST', '/api/internal/calls', {
        bearer: 'test-internal-token',
        body: { tenant_id: a.id, caller_phone: '+15551234567' },
      }),
    );
    await must(
      h.request('POST', '/api/v1/webhooks', { ...asA, body: { url: receiver.url('/a'), events: ['*'] } }),
    );
    const conversation = await must(
      h.request('POST', '/api/v1/conversations', { ...asA, body: { subject: MARKER } }),
    );
    await must(
      h.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
        ...asA,
        body: { body: MARKER },
      }),
    );
    await must(h.request('POST', `/api/v1/conversations/${conversation.id}/export`, { ...asA, body: {} }));
    await must(
      h.request('POST', '/api/v2/contacts', {
        ...adminA,
        body: { email: 'private@a.example', first_name: MARKER },
      }),
    );
    await must(h.request('POST', '/api/v2/companies', { ...adminA, body: { name: MARKER } }));
    await must(
      h.request('POST', '/api/kb/create-v2', {
        ...adminA,
        body: { title: MARKER, body: MARKER, destinations: ['native'] },
      }),
    );
    await must(
      h.request('POST', '/api/v1/tenant/users', { ...asA, body: { email: 'agent@a.example', name: MARKER } }),
    );
    await must(
      h.request('POST', '/api/v1/tenant/exports', { ...asA, body: { resource: 'tickets', format: 'json' } }),
    );
    await must(
      h.request('POST', '/api/v1/app/auth/register', {
        body: { tenant_id: a.id, email: 'eu@a.example', password: 'a long password 123', name: MARKER },
      }),
    );
    // a finished sync run (a real one needs an upstream helpdesk: tested in contacts-sync)
    await sql`insert into contact_sync_runs (id, tenant_id, provider, mode, status, error, triggered_by)
              values ('syn_isolation_a', ${a.id}, 'helpdesk_a', 'full', 'failed', ${MARKER}, 'user:a')`.execute(
      h.db,
    );
    await h.runtime.webhooks.settle();
    for (const table of new Set(ID_SOURCES.flatMap(([, m]) => Object.values(m)))) {
      const column = table === 'tenants' ? 'id' : 'tenant_id';
      const row = await sql<{
        id: string;
      }>`select id from ${sql.table(table)} where ${sql.ref(column)} = ${a.id} limit 1`.execute(h.db);
      if (row.rows[0]) idsOfA.set(table, row.rows[0].id);
    }
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  async function snapshotOfA(): Promise<string> {
    const parts: string[] = [];
    for (const table of new Set(ID_SOURCES.flatMap(([, m]) => Object.values(m)))) {
      const column = table === 'tenants' ? 'id' : 'tenant_id';
      const rows = await sql<{
        r: string;
      }>`select row_to_json(t)::text as r from ${sql.table(table)} t where ${sql.ref(column)} = ${a.id} order by 1`.execute(
        h.db,
      );
      // last_used_at moves with A's own use of its key; nothing B does may move anything else
      parts.push(...rows.rows.map((r) => r.r.replace(/"last_used_at":"[^"]*"/, '')));
    }
    return parts.join('\n');
  }

  it('B gets nothing of A through any id-taking route', async () => {
    const keyB = await b.key([...SCOPE_CATALOG]);
    const before = await snapshotOfA();
    const routes: { method: string; path: string }[] = [];
    for (const app of await loadFunctionApps())
      for (const r of app.routes) if (r.method !== 'ALL' && r.path.includes('/:')) routes.push(r);
    const covered: string[] = [];
    const uncovered: string[] = [];
    for (const route of routes) {
      if (OUT_OF_SCOPE.some((re) => re.test(route.path))) continue;
      const source = ID_SOURCES.find(([re]) => re.test(route.path))?.[1];
      let missing = false;
      const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
        const id = source?.[name] ? idsOfA.get(source[name]!) : undefined;
        if (!id) missing = true;
        return id ?? 'none';
      });
      if (missing) {
        uncovered.push(`${route.method} ${route.path}`);
        continue;
      }
      covered.push(`${route.method} ${route.path}`);
      for (const who of [{ apiKey: keyB }, { bearer: b.adminToken }]) {
        const res = await h.request(route.method, path, {
          ...who,
          body: { subject: 'x', body: 'x', status: 'open', name: 'x' },
        });
        expect(
          res.status,
          `${route.method} ${path} as B -> ${res.status} ${res.text.slice(0, 200)}`,
        ).toBeGreaterThanOrEqual(400);
        expect(res.text.includes(MARKER), `${route.method} ${path} leaked A's data`).toBe(false);
      }
    }
    await h.runtime.drain();
    expect(await snapshotOfA()).toBe(before);
    expect(uncovered).toEqual([]);
    expect(covered.length).toBeGreaterThanOrEqual(40);
  });

  it("B's lists never show A's rows", async () => {
    const keyB = await b.key([...SCOPE_CATALOG]);
    const lists = [
      '/api/v1/tickets',
      '/api/v1/calls',
      '/api/v1/webhooks',
      '/api/v1/conversations',
      '/api/v1/requesters',
      '/api/v1/tenant/users',
      '/api/v1/tenant/invitations',
      '/api/v1/tenant/exports',
      '/api/v2/contacts',
      '/api/v2/companies',
      '/api/v2/kb/articles',
      '/api/v2/audit-log',
      '/api/v1/api-keys',
    ];
    for (const path of lists) {
      const who =
        path.startsWith('/api/v2') || path.startsWith('/api/v1/api-keys')
          ? { bearer: b.adminToken }
          : { apiKey: keyB };
      const res = await h.request('GET', path, who);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.text.includes(MARKER), `${path} leaked A's rows`).toBe(false);
      for (const id of idsOfA.values())
        expect(res.text.includes(id), `${path} shows A's id ${id}`).toBe(false);
    }
  });
});
