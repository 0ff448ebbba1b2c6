import type { Context } from 'hono';

/**
 * The caller's address: Cloudflare's `CF-Connecting-IP` on the edge (set by Cloudflare, not the
 * client), the socket's remote address in the Node runtime. X-Forwarded-For is not trusted.
 */
export function clientIp(c: Context): string | null {
  const cf = c.req.header('cf-connecting-ip');
  if (cf) return cf;
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? null;
}
