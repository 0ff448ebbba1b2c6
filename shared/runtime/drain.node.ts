// Node only (node:http): the embedded server's stop, letting the requests in flight finish.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ServerType } from '@hono/node-server';

export interface Drain {
  /**
   * Stops taking connections and waits for the requests in flight, at most `graceMs`: each answer
   * closes its connection, idle keep-alive connections are closed at once, and whatever still
   * runs at the deadline is cut off. Resolves true when every request finished in time.
   */
  drain(graceMs: number): Promise<boolean>;
}

/** Tracks `server`'s requests in flight from now on, for a drain. */
export function drainable(server: ServerType): Drain {
  // serve() without a createServer option makes a node:http Server (ServerType also admits HTTP/2)
  const http = server as Server;
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  // Without Connection: close a keep-alive client may send its next request just as its idle
  // connection is closed, and that request is lost with it; told, it opens a new one (refused).
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  http.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    drain(graceMs) {
      draining = true;
      for (const res of inFlight) closeAfter(res);
      return new Promise<boolean>((resolve) => {
        const deadline = setTimeout(() => {
          http.closeAllConnections();
          resolve(false);
        }, graceMs);
        http.close(() => {
          clearTimeout(deadline);
          resolve(true);
        });
        http.closeIdleConnections();
      });
    },
  };
}
