/**
 * A failed sign-in without tenant_id costs the same whatever the number of tenants in which the
 * address holds accounts (0, 1, 2 or 6): the same number of password derivations (one per
 * address, counted in this process), the same status, body and headers, and p50 times measured in
 * this one run close to one another. The count is the sharp check; the times are compared loosely,
 * as this machine is shared (with one derivation per account, six accounts took about three times
 * as long as one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashAccountPassword, passwordDerivations } from '../../shared/auth/password';
import { type Harness, postgresUnavailable, startHarness, type TestResponse } from '../support/harness';

const ACCOUNTS = [0, 1, 2, 6] as const;
const ROUNDS = 15;
/** How far apart the p50s may be: loose on purpose (a shared 2-core machine); one derivation per account missed it by 2-3x. */
const SPREAD = 1.6;
/** Headers that differ by request whatever the account: its id, its time. */
const PER_REQUEST = new Set(['x-request-id', 'date']);

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const headersOf = (res: TestResponse) =>
  [...res.headers.entries()].filter(([name]) => !PER_REQUEST.has(name)).sort();

describe.skipIf(postgresUnavailable())('sign-in timing', () => {
  let h: Harness;
  const addressOf = (n: number) => `timing-${n}@several.example`;
  let ip = 0;

  beforeAll(async () => {
    // every attempt from its own client address: no throttle delay or lock in the way
    h = await startHarness({ TRUSTED_PROXY_HEADER: 'X-Real-IP' });
    const tenants = await Promise.all(Array.from({ length: 6 }, (_, i) => h.tenant({ name: `Timing ${i}` })));
    for (const n of ACCOUNTS)
      for (let i = 0; i < n; i++)
        await h.db
          .insertInto('tenant_users')
          .values({
            id: `tus_timing_${n}_${i}`,
            tenant_id: tenants[i]!.id,
            email: addressOf(n),
            name: `Timing ${n}`,
            role: 'agent',
            // each account its own password: a sign-in without tenant_id checks every one
            password_hash: await hashAccountPassword(addressOf(n), `the password of account ${i} here`),
            updated_at: new Date(),
          })
          .execute();
  }, 120_000);
  afterAll(() => h?.close());

  const failOnce = async (n: number) => {
    const before = passwordDerivations.count;
    const started = performance.now();
    const res = await h.request('POST', '/api/v1/auth/login', {
      body: { email: addressOf(n), password: 'not the password of any account' },
      headers: { 'X-Real-IP': `203.0.113.${(ip++ % 250) + 1}`, 'X-Forwarded-For': '' },
    });
    return { res, ms: performance.now() - started, derivations: passwordDerivations.count - before };
  };

  it('each account of the address still signs in with its own password (the accounts are real)', async () => {
    const res = await h.request('POST', '/api/v1/auth/login', {
      body: { email: addressOf(6), password: 'the password of account 4 here' },
      headers: { 'X-Real-IP': '192.0.2.1' },
    });
    expect(res.status, res.text).toBe(200);
  });

  /** One interleaved run of every case: the p50 of each, checking count, status and answer on the way. */
  const measure = async () => {
    const times = new Map<number, number[]>(ACCOUNTS.map((n) => [n, []]));
    const answers = new Map<number, TestResponse>();
    // interleaved, a new order each round, so a burst of load on the machine falls on every case alike
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...ACCOUNTS].sort(() => Math.random() - 0.5);
      for (const n of order) {
        const { res, ms, derivations } = await failOnce(n);
        expect([n, res.status, derivations]).toEqual([n, 401, 1]);
        times.get(n)!.push(ms);
        answers.set(n, res);
      }
    }
    const [first, ...others] = ACCOUNTS.map((n) => answers.get(n)!);
    for (const other of others) {
      expect(other.text).toBe(first!.text);
      expect(headersOf(other)).toEqual(headersOf(first!));
    }
    return ACCOUNTS.map((n) => p50(times.get(n)!));
  };
  const spread = (medians: number[]) => Math.max(...medians) / Math.min(...medians);

  it('0, 1, 2 and 6 accounts: one derivation each, the same answer, p50s close in one run', async () => {
    await failOnce(0); // warm-up: the first request of a process pays for its imports
    // The best of up to three runs: a machine busy with other test files can skew one run, while
    // one derivation per account (six accounts about three times one) is slow in every run.
    const runs: number[][] = [];
    while (runs.length < 3 && !runs.some((m) => spread(m) < SPREAD)) runs.push(await measure());
    const best = runs.reduce((a, b) => (spread(a) <= spread(b) ? a : b));
    expect(
      spread(best),
      `p50s per run ${runs.map((m) => m.map((x) => x.toFixed(0)).join('/')).join(', ')}`,
    ).toBeLessThan(SPREAD);
  }, 120_000);
});
