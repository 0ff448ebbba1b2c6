/**
 * A TCP proxy in front of a real Redis, for tests that play Redis faults on the plain path
 * (REDIS_URL, ioredis) as the Upstash REST stand-in plays them on the REST path. It forwards bytes
 * untouched; the faults are:
 *  - `delayMs`: every reply reaches the client this much later (in order, as over a slow link);
 *    setting it releases the replies held so far on the new delay (0: at once);
 *  - `fault = 'stall'`: connections are accepted and nothing is answered; clearing the fault drops
 *    the stalled connections (their commands have no reply to come), so the client reconnects;
 *  - `fault = 'refuse'`: the port is closed and every connection dropped until the fault is cleared.
 * Listens on port 0 of 127.0.0.1.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type RedisProxyFault = 'refuse' | 'stall' | null;

export interface RedisTcpProxy {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  delayMs: number;
  fault: RedisProxyFault;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket;
  /** replies not yet passed on, oldest first, each with the time it arrived from Redis */
  held: { chunk: Buffer; at: number }[];
  timer: NodeJS.Timeout | null;
}

/** Passes on the replies whose delay has passed, oldest first, and waits for the next one. */
function release(link: Link, delayMs: number) {
  if (link.timer) clearTimeout(link.timer);
  link.timer = null;
  while (link.held.length > 0) {
    const wait = link.held[0]!.at + delayMs - Date.now();
    if (wait > 0) {
      link.timer = setTimeout(() => release(link, delayMs), wait);
      return;
    }
    if (!link.client.destroyed) link.client.write(link.held.shift()!.chunk);
    else link.held.shift();
  }
}

export async function startRedisTcpProxy(
  options: { redisHost?: string; redisPort?: number; fault?: RedisProxyFault } = {},
): Promise<RedisTcpProxy> {
  const redisHost = options.redisHost ?? '127.0.0.1';
  const redisPort = options.redisPort ?? 6379;
  const state = { delayMs: 0, fault: options.fault ?? null };
  const links = new Set<Link>();

  const drop = (link: Link) => {
    if (link.timer) clearTimeout(link.timer);
    link.client.destroy();
    link.upstream.destroy();
    links.delete(link);
  };

  const server: Server = createServer((client) => {
    const upstream = connect({ host: redisHost, port: redisPort });
    const link: Link = { client, upstream, held: [], timer: null };
    links.add(link);
    client.on('data', (chunk) => {
      // stalled: the command is swallowed, as a Redis that accepted it and never answered
      if (state.fault !== 'stall') upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (state.fault === 'stall') return;
      link.held.push({ chunk, at: Date.now() });
      if (!link.timer) release(link, state.delayMs);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => drop(link));
      socket.on('close', () => drop(link));
    }
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (state.fault === 'refuse') server.close();

  const setFault = (fault: RedisProxyFault) => {
    const was = state.fault;
    state.fault = fault;
    if (was === fault) return;
    // a stalled connection has commands whose replies were swallowed: it cannot be resumed
    if (was === 'stall' || fault === 'refuse') for (const link of [...links]) drop(link);
    if (fault === 'refuse') server.close();
    if (was === 'refuse') void listen(port);
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
      for (const link of links) release(link, v);
    },
    get fault() {
      return state.fault;
    },
    set fault(v: RedisProxyFault) {
      setFault(v);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const link of [...links]) drop(link);
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
