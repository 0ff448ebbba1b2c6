/**
 * Slow and malformed clients on the Node server, over real sockets, wired as `npm start` wires it
 * (scripts/serve.ts): node:http's arrival limits from REQUEST_TIMEOUT_MS, the parser's answers in
 * the API's shape, and the cap on connections per client address.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Detail } from '../../shared/http/errors';
import {
  answerClientErrors,
  arrivalLimits,
  capConnectionsPerClient,
} from '../../shared/runtime/client-errors.node.js';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

/** REQUEST_TIMEOUT_MS of this server: short, so the test waits little */
const LIMIT_MS = 800;
const CAP = 3;

/** What came back on a raw socket until the server closed it (or `waitMs` passed). */
interface Exchange {
  text: string;
  closed: boolean;
  afterMs: number;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function exchange(socket: Socket, send: string, waitMs: number): Promise<Exchange> {
  const started = Date.now();
  return new Promise((resolve) => {
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      resolve({ text, closed, afterMs: Date.now() - started });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.once('close', () => done(true));
    socket.on('error', () => {});
    if (send) socket.write(send);
  });
}

/** The status, headers (lower-cased) and JSON body of a raw HTTP answer. */
function parse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
}

describe.skipIf(postgresUnavailable())('slow and malformed clients (Node server, real sockets)', () => {
  let h: Harness;
  let server: ServerType;
  let port: number;
  let key: string;

  beforeAll(async () => {
    h = await startHarness({ REQUEST_TIMEOUT_MS: String(LIMIT_MS), MAX_CONNECTIONS_PER_CLIENT: String(CAP) });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve(
        {
          fetch: h.runtime.app.fetch,
          port: 0,
          hostname: '127.0.0.1',
          serverOptions: arrivalLimits(h.config),
        },
        () => resolve(s),
      );
    });
    answerClientErrors(server);
    capConnectionsPerClient(server, h.config);
    port = (server.address() as AddressInfo).port;
    key = await (await h.tenant()).key(['tickets:write']);
  });
  afterAll(async () => {
    (server as unknown as { closeAllConnections?: () => void })?.closeAllConnections?.();
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  const expectRefusal = (got: Exchange, status: number, detail: string) => {
    expect(got.closed).toBe(true);
    const answer = parse(got.text);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toEqual({ detail });
  };

  it('headers that have not all arrived within REQUEST_TIMEOUT_MS get 408 and the connection closed', async () => {
    const socket = await open(port);
    const got = await exchange(socket, 'GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Slow: 1', LIMIT_MS * 4);
    expectRefusal(got, 408, Detail.requestTimeout);
    expect(got.afterMs).toBeGreaterThanOrEqual(LIMIT_MS - 50);
  });

  it('a body that has not all arrived within REQUEST_TIMEOUT_MS gets 408 and the connection closed', async () => {
    const socket = await open(port);
    const head = `POST /api/v1/tickets HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"subject":`;
    const got = await exchange(socket, head, LIMIT_MS * 4);
    expectRefusal(got, 408, Detail.requestTimeout);
  });

  it("the parser's own refusals carry nosniff and a JSON detail: malformed, CL+TE, headers too large", async () => {
    const malformed = await exchange(await open(port), 'NOT HTTP AT ALL\r\n\r\n', 3000);
    expectRefusal(malformed, 400, Detail.malformedRequest);
    const smuggled = await exchange(
      await open(port),
      'POST /api/v1/tickets HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      3000,
    );
    expectRefusal(smuggled, 400, Detail.malformedRequest);
    const huge = await exchange(
      await open(port),
      `GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      3000,
    );
    expectRefusal(huge, 431, Detail.headersTooLarge);
  });

  it('MAX_CONNECTIONS_PER_CLIENT: the connection over the cap is answered 429 and closed; a freed slot is usable', async () => {
    const held = await Promise.all(Array.from({ length: CAP }, () => open(port)));
    try {
      const over = await exchange(await open(port), '', 3000);
      expectRefusal(over, 429, Detail.tooManyConnections);
      const first = held.shift()!;
      const gone = new Promise((r) => first.once('close', r));
      first.destroy();
      await gone;
      await new Promise((r) => setTimeout(r, 50));
      const served = await exchange(
        await open(port),
        'GET /api/v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        3000,
      );
      expect(served.text.startsWith('HTTP/1.1 200')).toBe(true);
    } finally {
      for (const s of held) s.destroy();
    }
  });
});
