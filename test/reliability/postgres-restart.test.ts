/**
 * Fault (iii): Postgres restarted under load. While it is down requests fail with a clean
 * 503 {"detail": ...}; after it is back they succeed again with no manual step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { privatePostgresAvailable, startPrivatePostgres } from './private-postgres';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

const required = process.env.CI === 'true';

describe.skipIf(!privatePostgresAvailable() && !required)('Postgres restarted under load', () => {
  let pg: ReturnType<typeof startPrivatePostgres>;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    pg = startPrivatePostgres(await freePort());
    server = await startServer({ DATABASE_URL: pg.url });
    ({ key } = await provisionTenant(server.base, 'enterprise', ['tickets:read', 'tickets:write']));
  }, 120_000);

  afterAll(async () => {
    if (server && server.child.exitCode !== null) console.error(`server died:\n${server.output()}`);
    await server?.kill();
    pg?.destroy();
  });

  it('answers 503 while down and recovers by itself', async () => {
    const statuses: number[] = [];
    const bad: string[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const res = await json(server.base, 'GET', '/api/v1/tickets?limit=5', {
          headers: { 'x-api-key': key },
        }).catch(() => null);
        if (!res) continue;
        statuses.push(res.status);
        if (res.status !== 200 && !(res.status === 503 && typeof res.body?.detail === 'string')) {
          bad.push(`${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    pg.stop('immediate');
    await new Promise((r) => setTimeout(r, 1500));
    const down = await json(server.base, 'POST', '/api/v1/tickets', {
      headers: { 'x-api-key': key },
      body: { subject: 'while down' },
    });
    expect(down.status).toBe(503);
    expect(typeof down.body.detail).toBe('string');
    const health = await json(server.base, 'GET', '/api/v2/health');
    expect(health.status).toBe(503);
    pg.start();
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i++) {
      await new Promise((r) => setTimeout(r, 100));
      recovered =
        (await json(server.base, 'GET', '/api/v1/tickets?limit=5', { headers: { 'x-api-key': key } }))
          .status === 200;
    }
    stop = true;
    await load;
    expect(bad).toEqual([]);
    expect(statuses).toContain(503);
    expect(recovered).toBe(true);
    const after = await json(server.base, 'POST', '/api/v1/tickets', {
      headers: { 'x-api-key': key },
      body: { subject: 'after' },
    });
    expect(after.status).toBe(201);
  }, 120_000);
});
