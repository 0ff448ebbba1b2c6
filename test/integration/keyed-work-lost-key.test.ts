// A keyed write whose request lost its Idempotency-Key while it ran (another request took the key
// over after its lease lapsed) commits nothing: its work rolls back with the answer it could not
// write (409), and what would follow the commit (the invite mail) is not sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Detail } from '../../shared/http/errors';
import {
  DbIdempotencyStore,
  type IdempotencyClaim,
  type IdempotencyStore,
  type StoredResponse,
} from '../../shared/http/idempotency';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/** The database store, but every key it hands out is taken over by another holder at once. */
class TakenOver implements IdempotencyStore {
  readonly apartFromDatabase = false;
  constructor(
    private readonly inner: DbIdempotencyStore,
    private readonly h: Harness,
  ) {}
  async begin(claim: IdempotencyClaim) {
    const begun = await this.inner.begin(claim);
    if (begun.kind === 'new')
      await this.h.db
        .updateTable('idempotency_keys')
        .set({ lease_token: 'another-holder' })
        .where('tenant_id', '=', claim.scope.tenantId)
        .where('idempotency_key', '=', claim.scope.key)
        .execute();
    return begun;
  }
  renew(claim: IdempotencyClaim) {
    return this.inner.renew(claim);
  }
  complete(claim: IdempotencyClaim, response: StoredResponse) {
    return this.inner.complete(claim, response);
  }
  release(claim: IdempotencyClaim) {
    return this.inner.release(claim);
  }
}

describe.skipIf(postgresUnavailable())('a keyed write that lost its key commits and sends nothing', () => {
  let h: Harness;
  let t: TestTenant;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  /** `request` with an Idempotency-Key that another holder takes over while it runs */
  async function lostKey(method: string, path: string, body?: unknown) {
    const { services } = h.runtime;
    const kept = services.idempotencyStore;
    services.idempotencyStore = new TakenOver(new DbIdempotencyStore(h.db), h);
    try {
      return await h.request(method, path, {
        bearer: t.adminToken,
        body,
        headers: { 'Idempotency-Key': `lost-${++n}` },
      });
    } finally {
      services.idempotencyStore = kept;
    }
  }
  const mailsTo = async (email: string) => (await h.outbox()).filter((m) => m.to === email).length;

  it('an invitation: no colleague, no link, no audit entry, no mail', async () => {
    const email = 'lost.key@acme.example';
    const res = await lostKey('POST', '/api/v1/tenant/users', { email, role: 'agent' });
    expect(res.status, res.text).toBe(409);
    expect(res.body).toEqual({ detail: Detail.idempotencyInProgress });
    const users = await h.db.selectFrom('tenant_users').select('id').where('email', '=', email).execute();
    expect(users).toEqual([]);
    expect(await mailsTo(email)).toBe(0);
    // the same invitation without a key goes through: nothing was left half-made
    const plain = await h.request('POST', '/api/v1/tenant/users', {
      bearer: t.adminToken,
      body: { email, role: 'agent' },
    });
    expect(plain.status, plain.text).toBe(201);
    expect(await mailsTo(email)).toBe(1);
  });

  it('a resent invitation: no new link, no audit entry, no mail', async () => {
    const email = 'lost.resend@acme.example';
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: t.adminToken,
      body: { email, role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const links = () =>
      h.db
        .selectFrom('tenant_user_tokens')
        .select('token_hash')
        .where('user_id', '=', invited.body.id)
        .execute();
    const before = await links();
    const res = await lostKey('POST', `/api/v1/tenant/invitations/${invited.body.id}/resend`);
    expect(res.status, res.text).toBe(409);
    expect(await links()).toEqual(before);
    const audits = await h.db
      .selectFrom('audit_log')
      .select('id')
      .where('target_id', '=', invited.body.id)
      .where('action', '=', 'user.invited')
      .execute();
    expect(audits).toHaveLength(1);
    expect(await mailsTo(email)).toBe(1);
  });

  it('a webhook: none created (its secret was never shown)', async () => {
    const res = await lostKey('POST', '/api/v1/webhooks', {
      url: 'https://93.184.215.14/lost-key',
      events: ['ticket.created'],
    });
    expect(res.status, res.text).toBe(409);
    const hooks = await h.db.selectFrom('webhooks').select('id').where('tenant_id', '=', t.id).execute();
    expect(hooks).toEqual([]);
  });
});
