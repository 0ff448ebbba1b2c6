/**
 * Every link the service mails or returns starts with PUBLIC_BASE_URL: a request's Host or
 * X-Forwarded-Host is the caller's to forge, and a reset link built from it would hand the victim's
 * token to the forger's host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PUBLIC_BASE } from '../../shared/auth/accounts';
import { signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const FORGED = {
  Host: 'attacker.example',
  'X-Forwarded-Host': 'evil.example',
  'X-Forwarded-Proto': 'http',
  Forwarded: 'host=evil.example;proto=http',
};
/** the request as a forger sends it: to a URL on their host, with forwarding headers of their choice */
const forgedUrl = (path: string) => `http://attacker.example${path}`;

describe.skipIf(postgresUnavailable())('links come from configuration only', () => {
  for (const [label, env, base] of [
    [
      'PUBLIC_BASE_URL set',
      { PUBLIC_BASE_URL: 'https://support.example.com/' },
      'https://support.example.com',
    ],
    // development: the only place a response carries the invite's link
    ['PUBLIC_BASE_URL unset (development default)', { APP_ENV: 'development' }, DEFAULT_PUBLIC_BASE],
  ] as const) {
    describe(label, () => {
      let h: Harness;
      beforeAll(async () => {
        h = await startHarness(env);
      }, 120_000);
      afterAll(() => h?.close());

      it('invites (POST /tenants, POST /tenant/users): the answer and the mail link on the base', async () => {
        const created = await h.request('POST', forgedUrl('/api/v1/tenants'), {
          bearer: await h.superToken(),
          headers: FORGED,
          body: { name: 'Links', plan: 'pro', environment: 'production', admin_email: 'first@links.example' },
        });
        expect(created.status).toBe(201);
        const returned = h.config.APP_ENV === 'development';
        expect(created.body.invite.accept_url).toBe(
          returned ? `${base}/console/accept-invite?token=${created.body.invite.token}` : undefined,
        );
        const admin = await signUpAdmin(h);
        const invited = await h.request('POST', forgedUrl('/api/v1/tenant/users'), {
          bearer: admin.pair.access_token,
          headers: FORGED,
          body: { email: 'colleague@links.example', role: 'agent' },
        });
        expect(invited.status).toBe(201);
        if (returned)
          expect(invited.body.invite.accept_url.startsWith(`${base}/console/accept-invite?token=`)).toBe(
            true,
          );
        else expect(invited.body.invite).toEqual({ expires_at: expect.any(String) });
        const mails = (await h.outbox()).filter((m) => m.to.endsWith('@links.example'));
        expect(mails).toHaveLength(2);
        for (const mail of mails) {
          expect(mail.link.startsWith(`${base}/console/`)).toBe(true);
          expect(mail.text).not.toMatch(/attacker|evil/);
        }
      });

      it('password reset with a forged Host: the mailed link is on the base', async () => {
        const admin = await signUpAdmin(h);
        const res = await h.request('POST', forgedUrl('/api/v1/auth/password-reset'), {
          headers: FORGED,
          body: { email: admin.email },
        });
        expect(res.status).toBe(202);
        const mail = (await h.outbox()).filter((m) => m.to === admin.email).at(-1);
        expect(mail?.link).toMatch(
          new RegExp(`^${base.replace(/[.]/g, '\\.')}/console/reset-password\\?token=itsm_pwr_`),
        );
        expect(mail?.text).not.toMatch(/attacker|evil/);
      });
    });
  }
});
