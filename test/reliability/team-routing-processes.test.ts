/**
 * Team routing across two `npm start` processes on one Postgres: assignments to a routing team
 * sent at once, half to each process, take turns. Each pick holds the team's row lock from reading
 * the rotation to writing the record, so no two assignments read the same last pick: round robin
 * over four members for 40 assignments gives each exactly 10, and balanced (the member with the
 * fewest open assignments, ties in turn) keeps them even, on tickets (creation with
 * `assignee_team_id`) and on conversations (`POST .../assign` with the team alone).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

const pgUp = await postgresReachable();
if (!pgUp && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

const MEMBERS = ['usr_route_a', 'usr_route_b', 'usr_route_c', 'usr_route_d'];
const ASSIGNMENTS = 40;

describe.skipIf(!pgUp)('team routing across two processes', () => {
  let one: ServerProcess;
  let two: ServerProcess;
  let url: string;
  let drop: () => Promise<unknown>;
  let tenantId: string;
  let key: string;
  let admin: string;
  const db = () => new pg.Client({ connectionString: url });

  beforeAll(async () => {
    const name = `spa_routing_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    url = dbUrl(name);
    const env = {
      DATABASE_URL: url,
      // every one of the burst reaches the database: neither rate nor share refuses it
      RATE_LIMIT_SCALE: '100000',
      TENANT_DB_SHARE: '200',
      STATEMENT_TIMEOUT_MS: '20000',
      LOG_LEVEL: 'warn',
    };
    // one after the other: the first migrates the database
    one = await startServer(env);
    two = await startServer(env);
    ({ tenantId, key } = await provisionTenant(one.base, 'enterprise', ['tickets:read', 'tickets:write']));
    admin = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
      sub: 'admin',
      tenant_id: tenantId,
      role: 'tenant_admin',
    });
    const client = db();
    await client.connect();
    try {
      for (const id of MEMBERS)
        await client.query(
          `INSERT INTO tenant_users (id, tenant_id, email, role) VALUES ($1, $2, $3, 'agent')`,
          [id, tenantId, `${id}@people.test`],
        );
    } finally {
      await client.end();
    }
  }, 180_000);
  afterAll(async () => {
    await one?.kill();
    await two?.kill();
    await drop?.();
  });

  const asAdmin = () => ({ authorization: `Bearer ${admin}` });
  const team = async (routing: 'round_robin' | 'balanced') => {
    const res = await json(one.base, 'POST', '/api/v2/teams', {
      headers: asAdmin(),
      body: { name: `Team ${routing}`, routing, member_ids: MEMBERS },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  /**
   * `count` requests at once, alternating between the two processes. Each pick holds a pool
   * connection while it waits for the team's lock, so part of a burst this size may find its
   * process's pool busy: that answer is a 503 that wrote nothing, and is sent again, as a client would.
   */
  const burst = (count: number, send: (base: string, i: number) => ReturnType<typeof json>) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const base = (i % 2 === 0 ? one : two).base;
        for (let attempt = 0; ; attempt++) {
          const res = await send(base, i);
          if (res.status !== 503 || attempt >= 50) return res;
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
        }
      }),
    );
  const tally = (ids: (string | null)[]) => {
    const out: Record<string, number> = {};
    for (const id of ids) out[String(id)] = (out[String(id)] ?? 0) + 1;
    return out;
  };
  const even = (n: number) => Object.fromEntries(MEMBERS.map((m) => [m, n]));

  it('tickets created at once on two processes: round robin gives each of four members 10 of 40, balanced keeps them even', async () => {
    const create = (teamId: string) =>
      burst(ASSIGNMENTS, (base, i) =>
        json(base, 'POST', '/api/v1/tickets', {
          headers: { 'x-api-key': key },
          body: { subject: `Routed ${i}`, assignee_team_id: teamId },
        }),
      );
    const roundRobin = await create(await team('round_robin'));
    expect(roundRobin.map((r) => r.status)).toEqual(Array(ASSIGNMENTS).fill(201));
    expect(tally(roundRobin.map((r) => r.body.assignee_id))).toEqual(even(ASSIGNMENTS / MEMBERS.length));
    // every member now holds 10 open tickets: balanced sees ties throughout and takes turns
    const balanced = await create(await team('balanced'));
    expect(balanced.map((r) => r.status)).toEqual(Array(ASSIGNMENTS).fill(201));
    expect(tally(balanced.map((r) => r.body.assignee_id))).toEqual(even(ASSIGNMENTS / MEMBERS.length));
    // what the answers said is what was stored
    const list = await json(one.base, 'GET', '/api/v1/tickets?limit=100', { headers: { 'x-api-key': key } });
    expect(tally(list.body.tickets.map((t: { assignee_id: string }) => t.assignee_id))).toEqual(
      even((2 * ASSIGNMENTS) / MEMBERS.length),
    );
  });

  it('conversations assigned to a round-robin team at once on two processes: 10 each', async () => {
    const teamId = await team('round_robin');
    const conversations: string[] = [];
    for (let i = 0; i < ASSIGNMENTS; i++) {
      const res = await json(one.base, 'POST', '/api/v2/conversations', {
        headers: asAdmin(),
        body: { subject: `Conversation ${i}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      conversations.push(res.body.id);
    }
    const assigned = await burst(ASSIGNMENTS, (base, i) =>
      json(base, 'POST', `/api/v2/conversations/${conversations[i]}/assign`, {
        headers: asAdmin(),
        body: { assignee_team_id: teamId },
      }),
    );
    expect(assigned.map((r) => r.status)).toEqual(Array(ASSIGNMENTS).fill(200));
    expect(tally(assigned.map((r) => r.body.assignee_user_id))).toEqual(even(ASSIGNMENTS / MEMBERS.length));
  });
});
