// globalSetup of the e2e tier: one edge stack (test/e2e/edge-stack.ts) for every test file, with the
// QStash stand-in (scripts/edge/qstash.ts) as the Workers' QStash: its delayed callbacks come back
// into workerd signed with the stack's signing keys, as QStash's would.
import { createServer } from 'node:http';
import type { TestProject } from 'vitest/node';
import { startQStashStandIn } from '../../scripts/edge/qstash';
import { freePort } from '../support/free-port';
import { postgresReachable } from '../support/pg';
import { redisReachable, startUpstashRestAdapter } from '../support/upstash-rest-adapter';
import { startEdgeStack } from './edge-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    edgeUrl: string;
    edgeBindings: Record<string, string>;
    edgeDatabaseUrl: string;
    /** Upstash REST adapter in front of the local Redis ('' when Redis is not reachable) */
    upstashUrl: string;
    upstashToken: string;
    /** what the test files cannot reach from their own process: see `inspector` below */
    edgeInspectUrl: string;
    /** this process's pid: workerd runs as its descendant (test/e2e/files-memory.test.ts reads its memory) */
    edgeOwnerPid: number;
  }
}

/** QStash signing keys the tests sign callbacks with (fresh per run; never real keys). */
const randomKey = () => `sig_${crypto.randomUUID().replaceAll('-', '')}`;

export default async function setup(project: TestProject) {
  if (!(await postgresReachable()))
    throw new Error('The e2e tier needs PostgreSQL at 127.0.0.1:5432 (set TEST_POSTGRES_URL)');
  // Redis through the Upstash REST adapter (the Workers' @upstash/redis client speaks REST only)
  const upstash = (await redisReachable()) ? await startUpstashRestAdapter() : null;
  if (!upstash && process.env.CI === 'true')
    throw new Error('The e2e tier needs Redis at 127.0.0.1:6379 in CI');
  const signingKey = randomKey();
  const qstash = await startQStashStandIn({ currentSigningKey: signingKey, retryDelayMs: 200 });
  // the links and callbacks the Workers hand out point at the stack itself
  const port = await freePort();
  const stack = await startEdgeStack({
    port,
    controls: true,
    extraBindings: {
      ...(upstash ? { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token } : {}),
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: signingKey,
      QSTASH_NEXT_SIGNING_KEY: randomKey(),
      QSTASH_TOKEN: 'e2e-qstash-token',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // the tests' receivers listen on this machine
      WEBHOOK_SSRF_ALLOW: '127.0.0.1',
    },
  });
  // The inspector: the bucket's keys (GET /r2?prefix=) and the stand-in's publishes and callbacks
  // (GET /qstash), read by the test files, which run in other processes than this one.
  const inspector = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://inspector');
    const answer = async () => {
      if (url.pathname === '/r2') return stack.bucketKeys(url.searchParams.get('prefix') ?? '');
      if (url.pathname === '/qstash')
        return {
          publishes: qstash.publishes.map(({ destination, headers, body, messageId, deduplicated }) => ({
            destination,
            notBefore: headers['upstash-not-before'] ?? null,
            body,
            messageId,
            deduplicated,
          })),
          deliveries: qstash.deliveries,
        };
      return null;
    };
    answer().then(
      (body) => {
        res.writeHead(body === null ? 404 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (err) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => inspector.listen(0, '127.0.0.1', resolve));
  const inspectPort = (inspector.address() as { port: number }).port;
  project.provide('edgeUrl', stack.url);
  project.provide('edgeBindings', stack.bindings);
  project.provide('edgeDatabaseUrl', stack.databaseUrl);
  project.provide('upstashUrl', upstash?.url ?? '');
  project.provide('upstashToken', upstash?.token ?? '');
  project.provide('edgeOwnerPid', process.pid);
  project.provide('edgeInspectUrl', `http://127.0.0.1:${inspectPort}`);
  return async () => {
    // the Workers' statements go over Neon's HTTP path: a run that never reached the endpoint
    // tested the WebSocket path instead
    const httpRequests = stack.endpoint.requests;
    await new Promise<void>((resolve) => inspector.close(() => resolve()));
    await qstash.close();
    await stack.close();
    await upstash?.close();
    if (httpRequests === 0) throw new Error('no statement reached the Neon SQL-over-HTTP endpoint');
  };
}
