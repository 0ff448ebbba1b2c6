// The edge's database handle (shared/db/adapters/neon-http.ts, createEdgeHandle): one per
// connection string and settings for an isolate's lifetime, not one per request, so what an
// isolate keeps per database (the usage batch, the edge cycle's probe and sweep clocks) holds
// across its requests; other settings get a handle of their own.
import { describe, expect, it } from 'vitest';
import { createEdgeHandle } from '../../shared/db/adapters/neon-http';
import { recorderFor } from '../../shared/usage/meter';

const URL_A = 'postgres://u:p@db-a.example/app';
const env = { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' };

describe('the edge handle', () => {
  it('two requests of one isolate get one query builder, and so one usage batch', () => {
    const first = createEdgeHandle(URL_A, { ...env });
    const second = createEdgeHandle(URL_A, { ...env });
    expect(second.db).toBe(first.db);
    expect(recorderFor(second.db)).toBe(recorderFor(first.db));
  });

  it('another database or another statement limit is another handle', () => {
    const base = createEdgeHandle(URL_A, { ...env });
    expect(createEdgeHandle('postgres://u:p@db-b.example/app', { ...env }).db).not.toBe(base.db);
    expect(createEdgeHandle(URL_A, { ...env, STATEMENT_TIMEOUT_MS: '0' }).db).not.toBe(base.db);
  });
});
