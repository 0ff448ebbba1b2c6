// Node only (node:http): the embedded server's answer to requests its HTTP parser refuses.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerType } from '@hono/node-server';
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

/**
 * Requests Node's HTTP parser refuses before any handler sees them (headers over its 16 KB limit,
 * a malformed request line, header or chunk) get the API's error shape, `{"detail": …}`, where
 * Node would answer a bare status line with no body. As in Node's own handler, only while nothing
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
      const body = JSON.stringify({ detail });
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  );
}
