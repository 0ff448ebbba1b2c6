/**
 * Every response carries `X-Content-Type-Options: nosniff`, JSON included: handler answers, the
 * door's refusals, errors, 404s, 405s, preflights, HEAD. Over a real socket (the Node adapter, where
 * per-request headers go onto the ServerResponse) and through `app.request` (Hono's own headers, as
 * on Workers).
 */
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('nosniff on every response', () => {
  let h: Harness;
  let server: ServerType;
  let base: string;
  let key: string;
  let readOnly: string;

  beforeAll(async () => {
    h = await startHarness();
    const t = await h.tenant();
    key = await t.key(['tickets:read', 'tickets:write']);
    readOnly = await t.key(['tickets:read']);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.runtime.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  /** [label, method, path, headers, body, expected status] */
  const cases = (): [string, string, string, Record<string, string>, string | undefined, number][] => [
    ['a JSON 200', 'GET', '/api/v1/tickets', { 'x-api-key': key }, undefined, 200],
    [
      'a created 201',
      'POST',
      '/api/v1/tickets',
      { 'x-api-key': key, 'content-type': 'application/json' },
      '{"subject":"s"}',
      201,
    ],
    [
      'a handler 404',
      'GET',
      '/api/v1/tickets/tkt_0000000000000000000000',
      { 'x-api-key': key },
      undefined,
      404,
    ],
    [
      'a 422',
      'POST',
      '/api/v1/tickets',
      { 'x-api-key': key, 'content-type': 'application/json' },
      '{"subject":""}',
      422,
    ],
    ['the 401 at the door', 'GET', '/api/v1/tickets', {}, undefined, 401],
    [
      'a scope 403 at the door',
      'POST',
      '/api/v1/tickets',
      { 'x-api-key': readOnly, 'content-type': 'application/json' },
      '{"subject":"s"}',
      403,
    ],
    ['an unrouted 404', 'GET', '/nothing-here', {}, undefined, 404],
    ['a 405', 'DELETE', '/api/v1/tickets', { 'x-api-key': key }, undefined, 405],
    ['a 415 on sign-in', 'POST', '/api/v1/auth/login', { 'content-type': 'text/plain' }, 'x', 415],
    [
      'a sign-in 401',
      'POST',
      '/api/v1/auth/login',
      { 'content-type': 'application/json' },
      '{"email":"a@b.example","password":"p"}',
      401,
    ],
    [
      'a preflight',
      'OPTIONS',
      '/api/v1/help-center/articles',
      { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      undefined,
      204,
    ],
    // off the browser surfaces a preflight is no route: refused, and still nosniff
    [
      'a refused preflight',
      'OPTIONS',
      '/api/v1/auth/login',
      { origin: 'https://app.example' },
      undefined,
      405,
    ],
    ['a HEAD', 'HEAD', '/api/v1/tickets', { 'x-api-key': key }, undefined, 200],
    ['health', 'GET', '/api/v2/health', {}, undefined, 200],
  ];

  it('over a real socket (Node)', async () => {
    for (const [label, method, path, headers, body, status] of cases()) {
      const res = await fetch(`${base}${path}`, { method, headers, body });
      await res.arrayBuffer();
      expect([label, res.status]).toEqual([label, status]);
      expect([label, res.headers.get('x-content-type-options')]).toEqual([label, 'nosniff']);
    }
  });

  it('through the app itself (as on Workers)', async () => {
    for (const [label, method, path, headers, body, status] of cases()) {
      const res = await h.runtime.app.request(path, { method, headers, body });
      await res.arrayBuffer();
      expect([label, res.status]).toEqual([label, status]);
      expect([label, res.headers.get('x-content-type-options')]).toEqual([label, 'nosniff']);
    }
  });
});
