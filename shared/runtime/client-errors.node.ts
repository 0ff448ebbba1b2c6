// Node only (node:http): the embedded server's answer to requests its HTTP parser refuses.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerType } from '@hono/node-server';
import type { AppConfig } from '../env';
import { Detail } from '../http/errors';

/** Node's own choice of status per parser error (lib/_http_server.js), with the API's detail. */
const REFUSALS: Record<string, { status: number; reason: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    detail: Detail.headersTooLarge,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', detail: Detail.bodyTooLarge },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', detail: Detail.requestTimeout },
};
const MALFORMED = { status: 400, reason: 'Bad Request', detail: Detail.malformedRequest };

/** A whole answer written on the raw socket: the API's JSON error shape, nosniff, then close. */
function rawAnswer(status: number, reason: string, detail: string): string {
  const body = JSON.stringify({ detail });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `X-Content-Type-Options: nosniff\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * node:http's own clocks for a request's arrival, from REQUEST_TIMEOUT_MS: headers and body must
 * both be in within it (Node's defaults are 60 s for headers and 300 s for the whole request, so
 * a client sending a body a byte at a time held its connection for five minutes). Node checks them
 * every `connectionsCheckingInterval` (default 30 s): a quarter of the limit, so a slow request is
 * answered 408 (by `answerClientErrors`) within 1.25 times the limit. Only the request's arrival
 * is timed: a handler still working on its answer is not cut off.
 */
export function arrivalLimits(config: Pick<AppConfig, 'REQUEST_TIMEOUT_MS'>): ServerOptions {
  const limit = config.REQUEST_TIMEOUT_MS;
  return {
    requestTimeout: limit,
    headersTimeout: limit,
    connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(limit / 4))),
  };
}

/**
 * At most MAX_CONNECTIONS_PER_CLIENT connections open at once from one address: one client opening
 * thousands of idle or slow connections would otherwise hold sockets and memory every other client
 * needs. The one over the cap is answered 429 (JSON, nosniff) and closed before anything is read.
 * Behind a proxy (TRUSTED_PROXY_HEADER set) every connection comes from the proxy's address: the cap
 * is then the proxy's to enforce, and not applied here.
 */
export function capConnectionsPerClient(
  server: ServerType,
  config: Pick<AppConfig, 'MAX_CONNECTIONS_PER_CLIENT' | 'TRUSTED_PROXY_HEADER'>,
): void {
  const cap = config.MAX_CONNECTIONS_PER_CLIENT;
  if (cap <= 0 || config.TRUSTED_PROXY_HEADER) return;
  const open = new Map<string, number>();
  (server as Server).on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = (open.get(address) ?? 0) + 1;
    if (count > cap) {
      socket.end(rawAnswer(429, 'Too Many Requests', Detail.tooManyConnections));
      socket.destroySoon?.();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * Requests Node's HTTP parser refuses before any handler sees them (headers over its 16 KB limit,
 * a malformed request line, header or chunk) get the API's error shape, `{"detail": …}`, where
 * Node would answer a bare status line with no body, and `nosniff` like every other answer. A
 * request whose headers or body have not arrived within REQUEST_TIMEOUT_MS (`arrivalLimits`) gets
 * 408 here too. As in Node's own handler, only while nothing
 * has been written on the socket; the connection is closed after it (as Node's docs show).
 */
export function answerClientErrors(server: ServerType): void {
  // serve() without a createServer option makes a node:http Server (ServerType also admits HTTP/2)
  (server as Server).on(
    'clientError',
    (err: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
      if (err.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten) {
        socket.destroy();
        return;
      }
      const { status, reason, detail } = REFUSALS[err.code ?? ''] ?? MALFORMED;
      socket.end(rawAnswer(status, reason, detail));
    },
  );
}
