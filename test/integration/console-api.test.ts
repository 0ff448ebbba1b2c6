// What the console needs from the API beyond the spec's fields: the audit log narrowed by actor and
// a time window, and a rotated key naming the key it replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedToken } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('the console’s API additions', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  const log = (query: string) => h.request('GET', `/api/v2/audit-log${query}`, { bearer: t.adminToken });
  const createKey = (name: string) =>
    h.request('POST', '/api/v1/api-keys', { bearer: t.adminToken, body: { name, scopes: ['tickets:read'] } });

  it('filters the audit log by actor and by a time window, and refuses malformed filters', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await createKey('filtered');
    const after = new Date(Date.now() + 60_000).toISOString();
    const all = (await log('')).body.entries as { actor: string; created_at: string }[];
    expect(all.length).toBeGreaterThan(0);
    const actor = all[0]?.actor ?? '';

    const byActor = await log(`?actor=${encodeURIComponent(actor)}`);
    expect(byActor.status).toBe(200);
    expect(byActor.body.entries.length).toBeGreaterThan(0);
    expect(byActor.body.entries.every((e: { actor: string }) => e.actor === actor)).toBe(true);
    expect((await log('?actor=user%3Anobody')).body).toMatchObject({ entries: [], total: 0 });

    const inWindow = await log(`?since=${encodeURIComponent(before)}&until=${encodeURIComponent(after)}`);
    expect(inWindow.body.total).toBeGreaterThan(0);
    expect((await log(`?since=${encodeURIComponent(after)}`)).body.total).toBe(0);
    expect((await log(`?until=${encodeURIComponent(before)}`)).body.entries.length).toBeLessThan(all.length);

    for (const bad of ['?since=yesterday', '?until=2026-13-01T00:00:00Z', '?since=2026-11-01', '?actor='])
      expect((await log(bad)).status, bad).toBe(422);
  });

  it('names the key a rotation replaced', async () => {
    const created = await createKey('rotated');
    expect(created.status).toBe(201);
    const rotated = await h.request('POST', `/api/v1/api-keys/${created.body.id}/rotate`, {
      bearer: t.adminToken,
    });
    expect(rotated.status).toBe(200);
    const list = (await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken })).body.api_keys as {
      id: string;
      rotated_from: string | null;
    }[];
    expect(list.find((k) => k.id === rotated.body.id)?.rotated_from).toBe(created.body.id);
    expect(list.find((k) => k.id === created.body.id)?.rotated_from).toBeNull();
  });

  it('says an address is already invited, not that a user exists, and the preview names the invitee', async () => {
    const invite = (email: string) =>
      h.request('POST', '/api/v1/tenant/users', {
        bearer: t.adminToken,
        body: { email, name: 'Ana Silva', role: 'agent' },
      });
    const email = `invitee-${Date.now()}@acme.example`;
    expect((await invite(email)).status).toBe(201);
    const again = await invite(email.toUpperCase());
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already invited/);
    expect(again.body.detail).not.toMatch(/already exists/);

    const preview = await h.request('POST', '/api/v1/auth/invite-preview', {
      body: { token: await mailedToken(h, email) },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ email, name: 'Ana Silva', role: 'agent' });
  });
});
