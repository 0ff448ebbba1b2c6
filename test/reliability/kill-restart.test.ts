/**
 * Fault (ii): the server is killed with SIGKILL while deliveries are pending, then restarted on
 * the same database: every delivery completes. Run on Postgres and on PGlite's data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { json, provisionTenant, startServer } from './server-process';

const required = process.env.CI === 'true';
const pgUp = await postgresReachable();
if (!pgUp && required) throw new Error('PostgreSQL is required in CI');

async function deliveryStates(base: string, key: string, webhookId: string) {
  const res = await json(base, 'GET', `/api/v1/webhooks/${webhookId}/deliveries?limit=200`, {
    headers: { 'x-api-key': key },
  });
  return (res.body.deliveries ?? []) as { id: string; status: string; attempts: number }[];
}

for (const mode of ['postgres', 'pglite'] as const) {
  describe.skipIf(mode === 'postgres' && !pgUp)(`SIGKILL with pending deliveries (${mode})`, () => {
    let receiver: HttpsReceiver;
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      receiver = await startHttpsReceiver();
      env = { WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_RETRY_UNIT_MS: '400', WEBHOOK_TIMEOUT_MS: '2000' };
      if (mode === 'postgres') {
        const name = `spa_kill_${Date.now().toString(36)}`;
        await adminQuery(`CREATE DATABASE ${name}`);
        env.DATABASE_URL = dbUrl(name);
        cleanup = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } else {
        const dir = mkdtempSync(join(tmpdir(), 'spa-kill-'));
        env.DATA_DIR = dir;
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      }
    });
    afterAll(async () => {
      await receiver?.close();
      await cleanup?.();
    });

    it('a restarted server completes every pending delivery', async () => {
      const EVENTS = 20;
      // every delivery's first two attempts fail, so each is pending with a retry scheduled
      receiver.planEach('/kill', ['fail', 'fail'], 'success');
      let server = await startServer(env);
      const { key } = await provisionTenant(server.base, 'enterprise', [
        'tickets:write',
        'webhooks:write',
        'webhooks:read',
      ]);
      const hook = await json(server.base, 'POST', '/api/v1/webhooks', {
        headers: { 'x-api-key': key },
        body: { url: receiver.url('/kill'), events: ['ticket.created'] },
      });
      expect(hook.status).toBe(201);
      for (let i = 0; i < EVENTS; i++) {
        const res = await json(server.base, 'POST', '/api/v1/tickets', {
          headers: { 'x-api-key': key },
          body: { subject: `kill ${i}` },
        });
        expect(res.status).toBe(201);
      }
      for (let i = 0; i < 100 && receiver.received('/kill').length < EVENTS; i++)
        await new Promise((r) => setTimeout(r, 100));
      await server.kill('SIGKILL');

      const seenBefore = receiver.received('/kill').length;
      expect(seenBefore).toBeGreaterThan(0);
      server = await startServer(env);
      try {
        let states: { status: string }[] = [];
        for (let i = 0; i < 300; i++) {
          states = await deliveryStates(server.base, key, hook.body.id);
          if (states.length === EVENTS && states.every((d) => d.status === 'delivered')) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(states).toHaveLength(EVENTS);
        expect(states.filter((d) => d.status === 'delivered')).toHaveLength(EVENTS);
        const ticketIds = new Set(
          receiver
            .received('/kill')
            .filter((r) => r.answered === 'success')
            .map((r) => JSON.parse(r.body).data.ticket.id),
        );
        expect(ticketIds.size).toBe(EVENTS);
      } finally {
        await server.kill();
      }
    }, 150_000);
  });
}
