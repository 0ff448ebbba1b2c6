/**
 * Every password a dashboard user sets (accept-invite, password-reset confirm) meets the policy:
 * 12 characters or more, not whitespace alone, not one repeated character, not a common password.
 * A refusal is 422 in the spec's validation shape saying why, and spends nothing: the token still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const WEAK: [string, string, string][] = [
  ['short', 'short pw', 'Password must be at least 12 characters'],
  ['whitespace', ' '.repeat(12), 'Password must not be only whitespace'],
  ['repeated', 'aaaaaaaaaaaa', 'Password must not be one repeated character'],
  ['common', 'password1234', 'Password is too common: choose one that is not on lists of leaked passwords'],
  // length is counted after NFKC with invisible code points removed
  ['zero-width only', '\u200b\u200c'.repeat(6), 'Password must be at least 12 characters'],
  ['soft hyphens and zero-width', '\u00ad\u200b'.repeat(6), 'Password must be at least 12 characters'],
  [
    'padded with invisibles',
    'k9#q\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b',
    'Password must be at least 12 characters',
  ],
  ['two-character pattern', 'abababababab', 'Password must not be a repeated two-character pattern'],
  ['two-digit pattern', '121212121212', 'Password must not be a repeated two-character pattern'],
  ['whitespace pattern', ' \u3000'.repeat(6), 'Password must not be only whitespace'],
  ['repeated after NFKC', '\uff41'.repeat(6) + 'a'.repeat(6), 'Password must not be one repeated character'],
  // refused, not trimmed
  ['trailing space', 'password1234 ', 'Password must not begin or end with a space or other white space'],
  [
    'leading space',
    ' a brand new passphrase',
    'Password must not begin or end with a space or other white space',
  ],
  [
    'trailing tab',
    'a brand new passphrase\t',
    'Password must not begin or end with a space or other white space',
  ],
  [
    'common digits',
    '123456789012',
    'Password is too common: choose one that is not on lists of leaked passwords',
  ],
];

/** Long and varied enough for the rules above, yet easy to guess (the strength estimator's score under 3). */
const GUESSABLE = ['abcabcabcabcabc', 'abcdabcdabcdabcd', 'qwertyuiopasdf', 'aaaaaaaaaaab'];
/** The 422 of a guessable password: a sentence that says why and what to do. */
const TOO_EASY = /^Password is too easy to guess: [A-Z][^.]+\. [A-Z].+[^.]$/;

describe.skipIf(postgresUnavailable())('password policy on every password set', () => {
  let h: Harness;
  let admin: SignedUpAdmin;
  beforeAll(async () => {
    // each attempt from its own client address: the many refusals stay under the per-address budget
    h = await startHarness({ TRUSTED_PROXY_HEADER: 'X-Real-IP' });
    admin = await signUpAdmin(h, 'policy@passwords.example');
  }, 120_000);
  afterAll(() => h?.close());

  const mailedToken = async (to: string) => {
    const mail = (await h.outbox()).filter((m) => m.to === to).at(-1);
    return new URL(mail?.link ?? '').searchParams.get('token') as string;
  };

  it('accept-invite: each weak password is 422 with its reason; the invite still works after', async () => {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'weak@passwords.example', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const token = await mailedToken('weak@passwords.example');
    for (const [label, password, msg] of WEAK) {
      const res = await h.request('POST', '/api/v1/auth/accept-invite', { body: { token, password } });
      expect([label, res.status]).toEqual([label, 422]);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'password'], msg })]);
    }
    // guessable, and the invitee's own address and name (the name the request sets)
    for (const password of [
      ...GUESSABLE,
      'weak@passwords.example',
      'Weak@Passwords.Example',
      'Konstantin Weakley',
    ]) {
      const res = await h.request('POST', '/api/v1/auth/accept-invite', {
        body: { token, password, name: 'Konstantin Weakley' },
      });
      expect([password, res.status]).toEqual([password, 422]);
      expect(res.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'password'], msg: expect.stringMatching(TOO_EASY) }),
      ]);
    }
    const ok = await h.request('POST', '/api/v1/auth/accept-invite', { body: { token, password: PASSWORD } });
    expect(ok.status).toBe(200);
  });

  it('password-reset confirm: the same rules; the reset token still works after', async () => {
    await h.request('POST', '/api/v1/auth/password-reset', { body: { email: admin.email } });
    const token = await mailedToken(admin.email);
    for (const [i, [label, password, msg]] of WEAK.entries()) {
      const res = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
        body: { token, password },
        headers: { 'X-Real-IP': `198.51.100.${i + 1}` },
      });
      expect([label, res.status]).toEqual([label, 422]);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'password'], msg })]);
    }
    for (const [i, password] of [...GUESSABLE, admin.email].entries()) {
      const res = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
        body: { token, password },
        headers: { 'X-Real-IP': `198.51.100.${100 + i}` },
      });
      expect([password, res.status]).toEqual([password, 422]);
      expect(res.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'password'], msg: expect.stringMatching(TOO_EASY) }),
      ]);
    }
    const ok = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
      body: { token, password: 'a fresh passphrase 7' },
    });
    expect(ok.status).toBe(200);
  });

  it('sign-in does not apply the policy: a password set before it still signs in', async () => {
    const res = await h.request('POST', '/api/v1/auth/login', {
      body: { email: admin.email, password: 'a fresh passphrase 7' },
    });
    expect(res.status).toBe(200);
  });
});
