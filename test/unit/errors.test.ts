import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleError } from '../../shared/http/errors';

// A bug (anything thrown that is not a known refusal) is a 500 in the spec's shape, with a request
// id the caller can quote and the log line it leads to.
describe('handleError: an unexpected failure', () => {
  const logged: string[] = [];
  const app = new Hono();
  app.use('*', async (c, next) => {
    const sent = c.req.header('x-request-id');
    if (sent) c.set('requestId' as never, sent as never);
    await next();
  });
  app.get('/boom', () => {
    throw new TypeError('cannot read properties of undefined');
  });
  app.onError(handleError);
  afterEach(() => {
    vi.restoreAllMocks();
    logged.length = 0;
  });
  const spyLog = () =>
    vi.spyOn(console, 'error').mockImplementation((line: string) => void logged.push(line));

  it('answers 500 {"detail"} with a new request id that is also in the log line', async () => {
    spyLog();
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 'error', request_id: id, path: '/boom' });
  });

  it("uses the caller's own request id when it sent one", async () => {
    spyLog();
    const res = await app.request('/boom', { headers: { 'x-request-id': 'client-7' } });
    expect(res.headers.get('x-request-id')).toBe('client-7');
    expect(JSON.parse(logged[0]!).request_id).toBe('client-7');
  });
});
