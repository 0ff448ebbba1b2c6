/**
 * A local stand-in for QStash: the publish endpoint the product's `@upstash/qstash` Client calls
 * (point QSTASH_URL here), which records each publish and, like QStash, delivers it to its
 * destination once its delay (`Upstash-Delay`) or not-before time (`Upstash-Not-Before`) has come,
 * signed the way QStash signs (`Upstash-Signature`: an HS256 JWT by the current signing key, iss
 * `Upstash`, sub = the destination URL, body = base64url(SHA-256(raw body)), nbf/exp around now),
 * retried up to `Upstash-Retries` times while the destination answers non-2xx. A repeated
 * `Upstash-Deduplication-Id` is acknowledged and not delivered again, as QStash does.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SignJWT } from 'jose';

export interface Publish {
  method: string;
  path: string;
  /** the destination URL (what follows /v2/publish/) */
  destination: string;
  headers: Record<string, string>;
  body: string;
  messageId: string;
  /** a repeat of an earlier publish's Upstash-Deduplication-Id: acknowledged, never delivered */
  deduplicated: boolean;
}

export interface Delivery {
  messageId: string;
  destination: string;
  /** 0 for the first call, then 1, 2, ... (`Upstash-Retried`) */
  retried: number;
  status: number;
  at: number;
}

export interface QStashStandIn {
  url: string;
  publishes: Publish[];
  deliveries: Delivery[];
  /** resolves once every delivery due so far has been made (and its retries spent) */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface QStashStandInOptions {
  /** signs deliveries; without it the stand-in only records publishes */
  currentSigningKey?: string;
  /** the region QStash names in `Upstash-Region` (multi-region signing keys) */
  region?: string;
  /** how a delivery reaches its destination (default: fetch); a test may hand it to an app in-process */
  deliver?: (request: Request) => Promise<Response>;
  /** the pause between retries of a failed delivery (QStash backs off for minutes; default 50 ms) */
  retryDelayMs?: number;
  /** the answer to every publish, to play a QStash outage (default 201) */
  publishStatus?: number;
}

/** An `Upstash-Signature` value for `body` sent to `url`, signed with `key` (lifetime in seconds). */
export async function signQStashCallback(
  key: string,
  url: string,
  body: string,
  options: { issuedAt?: number; lifetime?: number } = {},
): Promise<string> {
  const now = options.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ body: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(url)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + (options.lifetime ?? 300))
    .setJti(`jwt_${randomUUID()}`)
    .sign(new TextEncoder().encode(key));
}

/** `Upstash-Delay` as QStash reads it: a number and a unit (`30s`, `5m`, `1h`, `2d`). */
const DELAY_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
function dueAt(headers: Record<string, string>, now: number): number {
  const notBefore = headers['upstash-not-before'];
  if (notBefore) return Number(notBefore) * 1000;
  const delay = /^(\d+)([smhd])$/.exec(headers['upstash-delay'] ?? '');
  return delay ? now + Number(delay[1]) * (DELAY_UNIT_MS[delay[2]!] ?? 0) : now;
}

/** The callback QStash makes for `publish`, its `retried`-th try, signed with `key`. */
async function callbackRequest(publish: Publish, key: string, retried: number, region?: string) {
  return new Request(publish.destination, {
    method: publish.headers['upstash-method'] ?? 'POST',
    headers: {
      'Content-Type': publish.headers['content-type'] ?? 'application/json',
      'Upstash-Signature': await signQStashCallback(key, publish.destination, publish.body),
      'Upstash-Message-Id': publish.messageId,
      'Upstash-Retried': String(retried),
      ...(region ? { 'Upstash-Region': region } : {}),
    },
    body: publish.body,
  });
}

/** A publish as the API received it (`/v2/publish/<destination>`). */
function publishOf(req: IncomingMessage, body: string, messageId: string, seen: Set<string>): Publish {
  const path = req.url ?? '/';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
  const prefix = '/v2/publish/';
  const dedup = headers['upstash-deduplication-id'];
  return {
    method: req.method ?? '',
    path,
    destination: path.startsWith(prefix) ? decodeURIComponent(path.slice(prefix.length)) : '',
    headers,
    body,
    messageId,
    deduplicated: dedup !== undefined && seen.has(dedup),
  };
}

/** A sleep whose timers `close()` can clear, so a stopped stand-in leaves none running. */
function sleeper(timers: Set<NodeJS.Timeout>) {
  return (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
}

function answerJson(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startQStashStandIn(options: QStashStandInOptions = {}): Promise<QStashStandIn> {
  const publishes: Publish[] = [];
  const deliveries: Delivery[] = [];
  const pending = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  const seen = new Set<string>();
  const deliver = options.deliver ?? ((request: Request) => fetch(request));
  const sleep = sleeper(timers);

  async function send(publish: Publish, key: string) {
    const retries = Number(publish.headers['upstash-retries'] ?? 3);
    for (let retried = 0; retried <= retries; retried++) {
      const request = await callbackRequest(publish, key, retried, options.region);
      const status = await deliver(request).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        () => 0,
      );
      deliveries.push({
        messageId: publish.messageId,
        destination: publish.destination,
        retried,
        status,
        at: Date.now(),
      });
      if (status >= 200 && status < 300) return;
      await sleep(options.retryDelayMs ?? 50);
    }
  }

  function schedule(publish: Publish) {
    const key = options.currentSigningKey;
    if (!key || publish.deduplicated) return;
    const task = sleep(Math.max(0, dueAt(publish.headers, Date.now()) - Date.now()))
      .then(() => send(publish, key))
      .finally(() => pending.delete(task));
    pending.add(task);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const publish = publishOf(req, body, `msg_${publishes.length + 1}`, seen);
      const dedup = publish.headers['upstash-deduplication-id'];
      const status = options.publishStatus ?? 201;
      if (status >= 300) {
        answerJson(res, status, { error: 'QStash stand-in: publish refused' });
        return;
      }
      if (dedup !== undefined) seen.add(dedup);
      publishes.push(publish);
      schedule(publish);
      answerJson(res, status, {
        messageId: publish.messageId,
        ...(publish.deduplicated ? { deduplicated: true } : {}),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    publishes,
    deliveries,
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
      }),
  };
}
