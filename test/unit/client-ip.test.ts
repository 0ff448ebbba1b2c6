import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../shared/context/app-env';
import type { Services } from '../../shared/context/services';
import { clientIp } from '../../shared/http/client-ip';

/** What clientIp answers for `headers` on `runtime` with TRUSTED_PROXY_HEADER = `trusted`. */
async function ipOf(runtime: 'node' | 'edge', headers: Record<string, string>, trusted?: string) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    c.set('services', { runtime, config: { TRUSTED_PROXY_HEADER: trusted } } as unknown as Services);
    return c.json({ ip: clientIp(c) });
  });
  const socket = { incoming: { socket: { remoteAddress: '127.0.0.1' } } };
  const res = await app.request('/', { headers }, runtime === 'node' ? socket : {});
  return ((await res.json()) as { ip: string | null }).ip;
}

describe('client address (shared/http/client-ip.ts)', () => {
  it('on Node, the socket: a client-sent CF-Connecting-IP or X-Forwarded-For is ignored', async () => {
    expect(
      await ipOf('node', { 'cf-connecting-ip': '198.51.100.7', 'x-forwarded-for': '198.51.100.8' }),
    ).toBe('127.0.0.1');
  });

  it('on Workers, CF-Connecting-IP (Cloudflare sets it)', async () => {
    expect(await ipOf('edge', { 'cf-connecting-ip': '198.51.100.7' })).toBe('198.51.100.7');
  });

  it('TRUSTED_PROXY_HEADER names the one header believed; a value that is not an address is not', async () => {
    expect(
      await ipOf('node', { 'x-real-ip': '203.0.113.9', 'cf-connecting-ip': '198.51.100.7' }, 'x-real-ip'),
    ).toBe('203.0.113.9');
    expect(await ipOf('node', { 'x-real-ip': 'not-an-ip' }, 'x-real-ip')).toBe('127.0.0.1');
    expect(await ipOf('node', {}, 'x-real-ip')).toBe('127.0.0.1');
  });
});
