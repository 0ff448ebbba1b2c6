// A password set on workerd: the auth Worker imports its strength estimator (zxcvbn with the word
// lists generated from the language packages, shared/auth/password-words.gen.ts) on the first
// password set, not at startup. A guessable password is refused with zxcvbn's own words, one made of
// surnames by the surname list, and a strong one is accepted.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newToken } from '../../shared/auth/accounts';
import { hmacSha256Hex } from '../../shared/crypto';
import { bindings, call, token } from './support';

const direct = new pg.Pool({ connectionString: inject('edgeDatabaseUrl'), max: 1 });
afterAll(() => direct.end());

/**
 * A live invite token for the tenant's first admin. The e2e stack runs outside development, so no
 * response carries the mailed one: the test stores one of its own as the auth function hashes it.
 */
async function inviteToken(tenantId: string, userId: string) {
  const invite = newToken('invite');
  const hash = await hmacSha256Hex(bindings().API_KEY_HASH_SECRET!, `dashboard-token:${invite}`);
  await direct.query(
    `INSERT INTO tenant_user_tokens (token_hash, purpose, tenant_id, user_id, expires_at)
     VALUES ($1, 'invite', $2, $3, now() + interval '1 hour')`,
    [hash, tenantId, userId],
  );
  return invite;
}

describe('password strength on workerd', () => {
  it('refuses guessable and surname passwords with zxcvbn feedback, accepts a strong one', async () => {
    const email = `first-admin-${Date.now()}@passwords.example`;
    const created = await call('POST', '/api/v1/tenants', {
      bearer: await token('super_admin', 'platform'),
      body: { name: 'Passwords', plan: 'pro', environment: 'production', admin_email: email },
    });
    expect(created.status, created.text).toBe(201);
    const invite = await inviteToken(created.body.id, created.body.invite.user_id);
    const accept = (password: string) =>
      call('POST', '/api/v1/auth/accept-invite', { body: { token: invite, password } });

    const pattern = await accept('abcabcabcabcabc');
    expect(pattern.status, pattern.text).toBe(422);
    expect(pattern.body.detail[0].msg).toMatch(/^Password is too easy to guess: Repeated character patterns/);
    const surnames = await accept('williamsjohnson');
    expect(surnames.status, surnames.text).toBe(422);
    expect(surnames.body.detail[0].msg).toMatch(/^Password is too easy to guess: Common names and surnames/);

    // the refusals spent nothing: the same token still sets a strong password
    const strong = await accept('ventriloquist-marzipan-9');
    expect(strong.status, strong.text).toBe(200);
    expect(strong.body.access_token).toEqual(expect.any(String));
  });
});
