import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../shared/context/app-env';
import type { Services } from '../../shared/context/services';
import { createNodeLogger } from '../../shared/log/logger.node.js';
import { buildChain } from '../../shared/runtime/chain';

// A bug (anything thrown that is not a known refusal) is a 500 in the spec's shape, with a request
// id the caller can quote and the log lines it leads to (the error, and the request's access line).
describe('an unexpected failure', () => {
  const logged: Record<string, unknown>[] = [];
  // the Node runtime's logger (pino) with an injected destination instead of stdout
  const logger = createNodeLogger({
    level: 'info',
    destination: { write: (line) => logged.push(JSON.parse(line)) },
  });
  const boom = new Hono<AppEnv>();
  boom.get('/boom/:thing', () => {
    throw new TypeError('cannot read properties of undefined');
  });
  // the root as every runtime builds it; /boom is outside /api, so the gate lets it through unauthenticated
  const root = buildChain([boom], {
    access: [],
    provideServices: { logger } as unknown as Services,
    logger,
    maxBodyBytes: 1024,
    corsOrigins: '*',
  });
  const call = async (headers: Record<string, string> = {}) => {
    logged.length = 0;
    return root.request('/boom/x', { headers });
  };

  it('answers 500 {"detail"} with a new request id that is also in the error line and the access line', async () => {
    const res = await call();
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^rid_[0-9A-Za-z]{13,}$/);
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 50, msg: 'unhandled', request_id: id, path: '/boom/x' });
    expect(String(logged[0]?.error)).toContain('TypeError: cannot read properties of undefined');
    expect(logged[1]).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/boom/:thing',
      status: 500,
      request_id: id,
      tenant_id: null,
      credential: 'anonymous',
    });
  });

  it("uses the caller's own request id when it sent one", async () => {
    const res = await call({ 'x-request-id': 'client-7' });
    expect(res.headers.get('x-request-id')).toBe('client-7');
    expect(logged.map((l) => l.request_id)).toEqual(['client-7', 'client-7']);
  });
});
