// Node only (node:http): how the embedded server closes a connection its answer asked to close.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerType } from '@hono/node-server';

/** How long a closing connection keeps taking (and discarding) what its client still sends. */
const LINGER_MS = 2000;

const lingering = new WeakSet<Socket>();

/**
 * Node's close after an answer with `Connection: close`: half-close, then linger. The answer (a 413
 * for a body over the limit, refused before it was read) and a FIN go out, and the socket keeps
 * reading: the HTTP parser discards the rest of the body. It is destroyed when the client closes
 * its side (as it does on reading the answer), or after LINGER_MS. Node's own close destroys the
 * socket as soon as the answer is written; the client's further bytes then meet a closed socket,
 * the kernel answers them with a reset, and a reset can discard the 413 before the client reads it.
 */
function lingeringClose(this: Socket): void {
  if (lingering.has(this)) return;
  lingering.add(this);
  if (this.writable) this.end();
  // (allowHalfOpen, as node:http's server sets it: the socket is destroyed once both sides ended)
  if (this.readableEnded || this.destroyed) {
    this.destroy();
    return;
  }
  const timer = setTimeout(() => this.destroy(), LINGER_MS);
  timer.unref();
  this.once('close', () => clearTimeout(timer));
  this.resume();
}

/** Every connection of `server` closes by lingeringClose when node:http closes it after an answer. */
export function lingerBeforeClose(server: ServerType): void {
  // serve() without a createServer option makes a node:http Server (ServerType also admits HTTP/2)
  (server as Server).on('connection', (socket: Socket) => {
    socket.destroySoon = lingeringClose;
  });
}
