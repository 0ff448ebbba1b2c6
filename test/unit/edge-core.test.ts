import { describe, expect, it } from 'vitest';
import { app } from '../../functions/docs/app';
import { ACCESS_RULES } from '../../functions/manifest';
import { generateApiKey } from '../../shared/auth/key-format';
import { Detail } from '../../shared/http/errors';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';

// Bindings of a Worker without DATABASE_URL: the docs Worker's core has no database to need one.
const env = { APP_ENV: 'development', LOG_LEVEL: 'error' };
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as never;

describe('edge core without a database (docs, console)', () => {
  const worker = edgeWorkerCore(app, ACCESS_RULES);
  const call = (path: string, headers: Record<string, string> = {}) =>
    worker.fetch(new Request(`https://docs.example.test${path}`, { headers }), { ...env }, ctx);

  it('serves the document with its absolute origin, no DATABASE_URL set', async () => {
    const res = await call('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { servers: { url: string }[] };
    expect(doc.servers[0]!.url).toBe('https://docs.example.test');
  });

  // the gate verifies a key presented where keys are refused; with no key store it refuses it unverified
  it('refuses a well-formed API key on /docs 403, not 500', async () => {
    const res = await call('/docs', { authorization: `Bearer ${generateApiKey('live').apiKey}` });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: Detail.apiKeyNotPermitted });
  });
});
