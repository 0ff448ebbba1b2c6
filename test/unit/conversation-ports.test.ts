// The conversations' channel senders and answerer are given to the runtime that is built and ride
// on every request's services: on the Worker's core and its production wrapper alike (the embedded
// runtime's side: test/integration/conversations-messages.test.ts, -inbound.test.ts).
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ACCESS_RULES } from '../../functions/manifest';
import type { AppEnv } from '../../shared/context/app-env';
import type { Answerer, ChannelSenders } from '../../shared/context/conversation-ports';
import { edgeWorker } from '../../shared/runtime/edge';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';

const answerer: Answerer = { answer: async () => null };
const channelSenders: ChannelSenders = { email: { send: async () => {} } };

// a public path of the manifest, answered with what the request's services carry
const probe = new Hono<AppEnv>();
probe.get('/api/v2/health', (c) => {
  const services = c.get('services');
  return c.json({
    answerer: services.answerer === answerer,
    channelSenders: services.channelSenders === channelSenders,
  });
});

// (the database is never reached: the probe reads none, and a handle over HTTP connects on its first statement)
const env = { APP_ENV: 'development', LOG_LEVEL: 'error', DATABASE_URL: 'postgres://u:p@127.0.0.1:9/none' };
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as never;

describe("the Worker's services carry the runtime's channel senders and answerer", () => {
  it.each([
    ['the edge core', edgeWorkerCore(probe, ACCESS_RULES, { answerer, channelSenders })],
    ['the production Worker', edgeWorker(probe, ACCESS_RULES, { answerer, channelSenders })],
  ])('%s', async (_, worker) => {
    const res = await worker.fetch(new Request('https://api.example.test/api/v2/health'), { ...env }, ctx);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ answerer: true, channelSenders: true });
  });

  it('a Worker given none carries none (the KB answerer and no sender apply)', async () => {
    const worker = edgeWorkerCore(probe, ACCESS_RULES);
    const res = await worker.fetch(new Request('https://api.example.test/api/v2/health'), { ...env }, ctx);
    expect(await res.json()).toEqual({ answerer: false, channelSenders: false });
  });
});
