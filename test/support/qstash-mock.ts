/**
 * A local stand-in for the QStash API: records every publish the product makes to its API
 * (point QSTASH_URL here) and answers like QStash does. Also signs callbacks the way QStash
 * does (HS256 JWT: iss Upstash, sub = callback URL, body = base64url(sha256(raw body))), so the
 * product's Receiver check is exercised with real tokens.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { SignJWT } from 'jose';

export interface Publish {
  method: string;
  path: string;
  /** the destination URL (what follows /v2/publish/) */
  destination: string;
  headers: Record<string, string>;
  body: string;
}

export interface QStashMock {
  url: string;
  publishes: Publish[];
  close(): Promise<void>;
}

export async function startQStashMock(): Promise<QStashMock> {
  const publishes: Publish[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      const prefix = '/v2/publish/';
      publishes.push({
        method: req.method ?? '',
        path,
        destination: path.startsWith(prefix) ? decodeURIComponent(path.slice(prefix.length)) : '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ messageId: `msg_${publishes.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    publishes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An `Upstash-Signature` value for `body` sent to `url`, signed with `key`. */
export async function signQStashCallback(key: string, url: string, body: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ body: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(url)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .setJti(`jwt_${randomUUID()}`)
    .sign(new TextEncoder().encode(key));
}
