/**
 * Generated from the scope table itself (Unkey's "security-test generator" idea): for every prefix
 * and method, a key with exactly the needed scopes passes the gate, and a key missing any one of
 * them gets the spec's exact 403 detail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_RULES } from '../../functions/registry';
import { compilePathPattern } from '../../shared/auth/access';
import type { HttpMethod } from '../../shared/context/scopes';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

interface Case {
  method: HttpMethod;
  path: string;
  pathScope: string;
  extras: string[];
}

/** A concrete path for an extra rule's pattern (`:id` -> a made-up id, `*` -> nothing). */
const concrete = (pattern: string) => pattern.replace(/:[a-z_]+/g, 'x_123').replace(/\*$/, '');

function cases(): Case[] {
  const out: Case[] = [];
  for (const rule of SCOPE_RULES) {
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const) {
      const pathScope = method === 'GET' ? rule.read : rule.write;
      // the bare prefix, plus one concrete path per extra rule that applies to this method
      const paths = new Set([`${rule.prefix}/x_123`]);
      for (const e of rule.extra ?? []) if (e.methods.includes(method) && e.path) paths.add(concrete(e.path));
      for (const path of paths) {
        const extras = (rule.extra ?? [])
          .filter((e) => e.methods.includes(method) && (!e.path || compilePathPattern(e.path).test(path)))
          .flatMap((e) => e.scopes)
          .filter((s, i, all) => s !== pathScope && all.indexOf(s) === i);
        out.push({ method, path, pathScope, extras });
      }
    }
  }
  return out;
}

const CASES = cases();

describe.skipIf(postgresUnavailable())('scope enforcement, table-driven over SCOPE_RULES', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  it('covers the spec examples', () => {
    const find = (m: string, p: string) => CASES.find((c) => c.method === m && c.path === p);
    expect(find('DELETE', '/api/v1/webhooks/x_123')).toMatchObject({
      pathScope: 'webhooks:write',
      extras: ['webhooks:delete'],
    });
    expect(find('GET', '/api/v1/tenant/users/x_123')).toMatchObject({
      pathScope: 'users:read',
      extras: ['roles:write'],
    });
    expect(find('POST', '/api/v1/voice-widget/token')).toMatchObject({
      pathScope: 'config:write',
      extras: ['calls:write'],
    });
    expect(find('POST', '/api/v1/conversations/x_123/export')).toMatchObject({
      pathScope: 'conversations:write',
      extras: ['conversations:export', 'conversations:read'],
    });
    expect(find('GET', '/api/v1/tenant/exports/x_123')).toMatchObject({
      pathScope: 'exports:read',
      extras: ['config:write'],
    });
  });

  it.each(CASES)('$method $path: exact scopes pass, each missing one is refused', async (c) => {
    const needed = [c.pathScope, ...c.extras];
    const full = await t.key(needed);
    const ok = await h.request(c.method, c.path, { apiKey: full, body: {} });
    expect([401, 403]).not.toContain(ok.status);

    const withoutPath = await t.key(
      c.extras.length ? c.extras : [c.pathScope === 'tickets:read' ? 'calls:read' : 'tickets:read'],
    );
    const refused = await h.request(c.method, c.path, { apiKey: withoutPath, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: `API key missing required scope: ${c.pathScope}` });

    for (const extra of c.extras) {
      const key = await t.key(needed.filter((s) => s !== extra));
      const res = await h.request(c.method, c.path, { apiKey: key, body: {} });
      expect(res.status).toBe(403);
      // the first missing extra (in table order) is named
      const firstMissing = c.extras.find((s) => s === extra);
      expect(res.body).toEqual({ detail: `Insufficient permissions: requires ${firstMissing}` });
    }
  });
});
