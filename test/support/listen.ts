import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';

/**
 * Serves `fetch` on a port the OS picks (port 0), so no two runs or tiers can collide on a number;
 * a listen error rejects at once with its reason instead of leaving the caller to time out.
 */
export function serveOnFreePort(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<{ server: ServerType; base: string }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
    server.once('error', reject);
  });
}
