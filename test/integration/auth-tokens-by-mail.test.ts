/**
 * Tokens by mail only: outside APP_ENV=development no response carries an invitation, reset or
 * magic-link token or a link holding one (the mailbox is the proof); development returns them for
 * local use. And the text that reaches mail: tenant and user names refuse control characters and
 * line breaks, and the subjects are fixed templates with the name quoted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedLink, mailedToken, PASSWORD, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

/** Every way a token or a link holding one could show in an answer. */
const TOKEN_TRACES = [/itsm_inv_/, /itsm_pwr_/, /token=/, /accept-invite/, /reset-password/, /magic/i];

/** Every response of the invitation and reset flows, as an admin of a fresh tenant sends them. */
async function invitationAnswers(h: Harness, domain: string) {
  const created = await h.request('POST', '/api/v1/tenants', {
    bearer: await h.superToken(),
    body: { name: 'Mailbox', plan: 'pro', environment: 'production', admin_email: `first@${domain}` },
  });
  expect(created.status).toBe(201);
  const tenant = await h.tenant();
  const key = await tenant.key(['users:write', 'users:read', 'roles:write']);
  const bySession = await h.request('POST', '/api/v1/tenant/users', {
    bearer: tenant.adminToken,
    body: { email: `colleague@${domain}`, role: 'agent' },
  });
  const byKey = await h.request('POST', '/api/v1/tenant/users', {
    apiKey: key,
    body: { email: `keyed@${domain}`, role: 'agent' },
  });
  const resent = await h.request('POST', `/api/v1/tenant/invitations/${byKey.body.id}/resend`, {
    apiKey: key,
  });
  const reset = await h.request('POST', '/api/v1/auth/password-reset', {
    body: { email: `first@${domain}` },
  });
  const list = await h.request('GET', '/api/v1/tenant/invitations', { apiKey: key });
  return { created, bySession, byKey, resent, reset, list };
}

describe.skipIf(postgresUnavailable())('tokens by mail only', () => {
  describe('APP_ENV=production', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        APP_ENV: 'production',
        PUBLIC_BASE_URL: 'https://support.example.com',
        VOICE_WIDGET_SECRET: 'voice-widget-secret',
      });
    }, 120_000);
    afterAll(() => h?.close());

    it('no answer of the invitation or reset flows carries a token or a link holding one', async () => {
      const answers = await invitationAnswers(h, 'prod.example');
      expect(answers.created.body.invite).toEqual({
        user_id: expect.any(String),
        email: 'first@prod.example',
        expires_at: expect.any(String),
      });
      expect(answers.bySession.status).toBe(201);
      expect(answers.bySession.body.invite).toEqual({ expires_at: expect.any(String) });
      expect(answers.byKey.status).toBe(201);
      expect(answers.byKey.body.invite).toEqual({ expires_at: expect.any(String) });
      expect(answers.resent.status).toBe(200);
      expect(answers.resent.body.invite).toEqual({ expires_at: answers.resent.body.expires_at });
      expect(answers.reset.status).toBe(202);
      for (const [name, res] of Object.entries(answers)) {
        for (const trace of TOKEN_TRACES)
          expect([name, res.text]).not.toEqual([name, expect.stringMatching(trace)]);
      }
    });
  });

  describe('APP_ENV=test (as staging): the mail carries the token', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    }, 120_000);
    afterAll(() => h?.close());

    it('answers carry none; the mailed link accepts the invite', async () => {
      const answers = await invitationAnswers(h, 'staged.example');
      for (const [name, res] of Object.entries(answers)) {
        for (const trace of TOKEN_TRACES)
          expect([name, res.text]).not.toEqual([name, expect.stringMatching(trace)]);
      }
      const link = await mailedLink(h, 'colleague@staged.example');
      expect(link).toMatch(/\/console\/accept-invite\?token=itsm_inv_/);
      const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
        body: { token: await mailedToken(h, 'colleague@staged.example'), password: PASSWORD },
      });
      expect(accepted.status).toBe(200);
    });
  });

  describe('APP_ENV=development: returned for local use', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ APP_ENV: 'development' });
    }, 120_000);
    afterAll(() => h?.close());

    it('the invite answers carry the token and its link, the same the mail carries', async () => {
      const { created, bySession, resent } = await invitationAnswers(h, 'dev.example');
      expect(created.body.invite.token).toMatch(/^itsm_inv_/);
      expect(created.body.invite.accept_url).toBe(await mailedLink(h, 'first@dev.example'));
      expect(bySession.body.invite.accept_url).toBe(await mailedLink(h, 'colleague@dev.example'));
      expect(resent.body.invite.token).toBe(await mailedToken(h, 'keyed@dev.example'));
      const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
        body: { token: bySession.body.invite.token, password: PASSWORD },
      });
      expect(accepted.status).toBe(200);
    });
  });
});

describe.skipIf(postgresUnavailable())('text that reaches mail', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 120_000);
  afterAll(() => h?.close());

  const HOSTILE = [
    ['a line feed', 'Acme\nACTION REQUIRED: verify at https://evil.example'],
    ['a carriage return', 'Acme\rACTION REQUIRED'],
    ['a tab', 'Acme\tTeam'],
    ['a bell', 'Acme\u0007'],
    ['a C1 control', 'Acme\u0085Team'],
    ['a line separator', 'Acme\u2028ACTION REQUIRED'],
    ['a paragraph separator', 'Acme\u2029ACTION REQUIRED'],
    ['a bidi override', 'Acme\u202eemca'],
  ] as const;
  const RULE = 'Must not contain control characters or line breaks';
  const refusedWith = (res: { status: number; body: any }, loc: string[]) => {
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, msg: RULE })]);
  };

  it('tenant names: 422 at create and rename, nothing written', async () => {
    const admin = await signUpAdmin(h, 'names-owner@names.example');
    const before = await h.db.selectFrom('tenants').select('id').execute();
    for (const [label, name] of HOSTILE) {
      const created = await h.request('POST', '/api/v1/tenants', {
        bearer: await h.superToken(),
        body: { name, plan: 'pro', environment: 'production', admin_email: 'x@names.example' },
      });
      expect(label && created.status).toBe(label && 422);
      refusedWith(created, ['body', 'name']);
      const renamed = await h.request('PATCH', '/api/v1/tenant', {
        bearer: admin.pair.access_token,
        body: { name },
      });
      refusedWith(renamed, ['body', 'name']);
    }
    expect(await h.db.selectFrom('tenants').select('id').execute()).toHaveLength(before.length);
    const tenant = await h.db
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', admin.tenantId)
      .executeTakeFirst();
    expect(tenant?.name).toBe('Acme');
    // a name with quotes, accents and emoji is a name
    const fine = await h.request('PATCH', '/api/v1/tenant', {
      bearer: admin.pair.access_token,
      body: { name: 'Café "Zürich" 🚀' },
    });
    expect(fine.status).toBe(200);
  });

  it('user names: 422 at invite, update and accept', async () => {
    const admin = await signUpAdmin(h, 'users-owner@names.example');
    for (const [, name] of HOSTILE) {
      const invited = await h.request('POST', '/api/v1/tenant/users', {
        bearer: admin.pair.access_token,
        body: { email: 'hostile@names.example', name, role: 'agent' },
      });
      refusedWith(invited, ['body', 'name']);
      const updated = await h.request('PATCH', `/api/v1/tenant/users/${admin.userId}`, {
        bearer: admin.pair.access_token,
        body: { name },
      });
      refusedWith(updated, ['body', 'name']);
    }
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'later@names.example', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const token = await mailedToken(h, 'later@names.example');
    const refused = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token, password: PASSWORD, name: 'Eve\nACTION REQUIRED' },
    });
    refusedWith(refused, ['body', 'name']);
    // the refusal spent nothing: the invite still works
    expect(
      (
        await h.request('POST', '/api/v1/auth/accept-invite', {
          body: { token, password: PASSWORD, name: 'Eve' },
        })
      ).status,
    ).toBe(200);
  });

  it('a captured mail: the subject is the fixed template with the name quoted on one line, the link after', async () => {
    const admin = await signUpAdmin(h, 'mail-owner@names.example');
    await h.request('PATCH', '/api/v1/tenant', {
      bearer: admin.pair.access_token,
      body: { name: 'Acme Support' },
    });
    await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'reader@names.example', role: 'agent' },
    });
    const mail = (await h.outbox()).filter((m) => m.to === 'reader@names.example').at(-1);
    expect(mail?.subject).toBe('Your invitation to "Acme Support"');
    expect(mail?.text.split('\n')[0]).toBe(
      'You have been invited to the tenant "Acme Support" on the Support Platform.',
    );
    expect(mail?.text).toContain(`Set your password: ${mail?.link}`);

    // a name stored before the rule (written straight to the table) still reaches mail on one line
    await h.db
      .updateTable('tenants')
      .set({ name: 'Acme\r\nACTION REQUIRED: https://evil.example\u2028now' })
      .where('id', '=', admin.tenantId)
      .execute();
    await h.request('POST', '/api/v1/auth/password-reset', { body: { email: admin.email } });
    const reset = (await h.outbox()).filter((m) => m.to === admin.email).at(-1);
    expect(reset?.subject).toBe('Reset your password for "Acme ACTION REQUIRED: https://evil.example now"');
    expect(reset?.subject).not.toMatch(/[\r\n\u2028]/);
    const lines = reset?.text.split('\n') ?? [];
    expect(lines[0]).toBe(
      'A password reset was requested for your account in the tenant "Acme ACTION REQUIRED: https://evil.example now".',
    );
    expect(lines.filter((l) => l.includes('ACTION REQUIRED'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('://'))).toEqual([
      lines[0],
      `Choose a new password: ${reset?.link}`,
    ]);
  });
});
