/**
 * A real HTTPS webhook receiver on localhost (self-signed certificate from scripts/lib/tls) that
 * records every request and answers as told, per path: `success` (200), `fail` (500), `timeout`
 * (never answers), `slow` (200 after `slowMs`), `redirect` (302 to /elsewhere), a status code, or a
 * CustomAnswer (status, body and headers as given).
 * The benchmarks deliver to it and so do the tests, so it lives outside test/: scripts never import
 * test code.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { fileURLToPath } from 'node:url';

export const TLS_CERT_PATH = fileURLToPath(new URL('./tls/localhost.crt', import.meta.url));
const TLS_KEY_PATH = fileURLToPath(new URL('./tls/localhost.key', import.meta.url));

/**
 * Makes the webhook transport of this process trust the test certificate. Node itself reads
 * NODE_EXTRA_CA_CERTS only at start; the Node transport re-reads it when it changes.
 */
export function trustTestCertificate() {
  process.env.NODE_EXTRA_CA_CERTS = TLS_CERT_PATH;
}

/** An answer spelled out: status, body and extra headers. */
export interface CustomAnswer {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
}
export type Behaviour = 'success' | 'fail' | 'timeout' | 'slow' | 'redirect' | number | CustomAnswer;

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** the raw body exactly as received */
  body: string;
  receivedAt: number;
  /** what the receiver answered (`timeout`: nothing) */
  answered: Behaviour;
}

export interface HttpsReceiver {
  /** https://localhost:<port><path> */
  url(path?: string, host?: string): string;
  port: number;
  requests: ReceivedRequest[];
  /** answers for the next requests to `path`, in order; then `fallback` (default success) */
  plan(path: string, answers: Behaviour[], fallback?: Behaviour): void;
  /**
   * Like `plan`, but every delivery (its X-Webhook-Delivery-Id) gets its own copy of `answers`:
   * how often one delivery fails no longer depends on how its attempts interleave with others'.
   */
  planEach(path: string, answers: Behaviour[], fallback?: Behaviour): void;
  received(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startHttpsReceiver(options: { slowMs?: number } = {}): Promise<HttpsReceiver> {
  const slowMs = options.slowMs ?? 50;
  const plans = new Map<string, { queue: Behaviour[]; fallback: Behaviour }>();
  const perDelivery = new Map<string, { answers: Behaviour[]; fallback: Behaviour }>();
  const queues = new Map<string, Behaviour[]>();
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer(
    { cert: readFileSync(TLS_CERT_PATH), key: readFileSync(TLS_KEY_PATH) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const plan = plans.get(path);
        const each = perDelivery.get(path);
        let answer: Behaviour = plan ? (plan.queue.shift() ?? plan.fallback) : 'success';
        if (each) {
          const key = `${path} ${req.headers['x-webhook-delivery-id'] ?? ''}`;
          const queue = queues.get(key) ?? [...each.answers];
          queues.set(key, queue);
          answer = queue.shift() ?? each.fallback;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
        requests.push({
          method: req.method ?? '',
          path,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
          answered: answer,
        });
        const send = (status: number, extra: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'text/plain', ...extra });
          res.end(status >= 200 && status < 300 ? 'ok' : 'no');
        };
        if (answer === 'timeout') {
          hanging.add(res);
          return;
        }
        if (answer === 'slow') {
          setTimeout(() => send(200), slowMs);
          return;
        }
        if (answer === 'redirect') return send(302, { location: '/elsewhere' });
        if (typeof answer === 'object') {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body);
          return;
        }
        send(answer === 'success' ? 200 : answer === 'fail' ? 500 : answer);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    port,
    requests,
    url: (path = '/hook', host = 'localhost') => `https://${host}:${port}${path}`,
    plan(path, answers, fallback = 'success') {
      plans.set(path, { queue: [...answers], fallback });
    },
    planEach(path, answers, fallback = 'success') {
      perDelivery.set(path, { answers: [...answers], fallback });
    },
    received: (path) => requests.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
