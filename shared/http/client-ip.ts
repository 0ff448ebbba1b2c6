import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from '../context/app-env';

/** The header the runtime itself guarantees: on Workers Cloudflare sets it and drops a client's copy. */
const RUNTIME_HEADER = { edge: 'cf-connecting-ip', node: null } as const;

/**
 * The caller's address (audit log `source_ip`, the per-IP limit of end-user sign-in). A proxy
 * header is believed only where something guarantees it: CF-Connecting-IP on Workers, or the one
 * header named by TRUSTED_PROXY_HEADER (a proxy of yours in front of Node). Otherwise the socket's
 * remote address: on Node a client-sent CF-Connecting-IP or X-Forwarded-For changes nothing.
 */
export function clientIp(c: Context<AppEnv>): string | null {
  const { runtime, config } = c.get('services');
  const header = config.TRUSTED_PROXY_HEADER ?? RUNTIME_HEADER[runtime];
  if (header) {
    // a trusted header that does not hold an address (misconfigured proxy) is not recorded as one
    const sent = c.req.header(header)?.trim();
    if (sent && ipaddr.isValid(sent)) return sent;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? null;
}
