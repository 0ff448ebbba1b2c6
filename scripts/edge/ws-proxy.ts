// A WebSocket-to-TCP proxy: lets the Neon serverless driver (Workers, workerd) reach this machine's
// plain Postgres, as Neon's own proxy does in production. The driver (shared/db/adapters/neon.ts with
// NEON_WS_PROXY=127.0.0.1:<port>) opens `ws://127.0.0.1:<port>/v1?address=<host>:<port>`; each
// connection is piped to that address, which must be in `allow` (default: the Postgres of the tests).
// `delayMs` is a round-trip time: the upgrade answers that much later, and every chunk waits half of
// it on its way in each direction (in order), so a request's wait grows with its round trips.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface WsProxy {
  port: number;
  /** what to set as NEON_WS_PROXY */
  address: string;
  /** the round-trip time (settable while running; change it only between requests) */
  delayMs: number;
  connections(): number;
  /**
   * Round trips made so far: each upgrade, plus each flight of client messages answered by Postgres
   * (messages the client sends without waiting count once), counted when the answer arrives.
   */
  roundTrips(): number;
  close(): Promise<void>;
}

interface ProxyState {
  delayMs: number;
  trips: number;
  opened: number;
}

/** Half a round trip later; same-duration timers fire in the order they were set: bytes stay in order. */
const halfTripLater = (state: ProxyState, fn: () => void) =>
  state.delayMs > 0 ? setTimeout(fn, state.delayMs / 2) : fn();

/** One WebSocket piped to a TCP connection to `target`, both ways, each chunk half a trip late. */
function pipe(ws: WebSocket, target: string, state: ProxyState) {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const socket = connect({ host: host === 'localhost' ? '127.0.0.1' : host, port });
  socket.setNoDelay(true);
  const pending: Buffer[] = [];
  let connected = false;
  // a flight: client messages sent without waiting, then Postgres's answer (counted when delivered)
  let inFlight = false;
  socket.on('connect', () => {
    connected = true;
    for (const chunk of pending.splice(0)) socket.write(chunk);
  });
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    const chunk = Buffer.isBuffer(data)
      ? data
      : Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.from(data as ArrayBuffer);
    inFlight = true;
    halfTripLater(state, () => {
      if (connected) socket.write(chunk);
      else pending.push(chunk);
    });
  });
  socket.on('data', (chunk) => {
    const answers = inFlight;
    inFlight = false;
    halfTripLater(state, () => {
      if (answers) state.trips++;
      if (ws.readyState === ws.OPEN) ws.send(chunk);
    });
  });
  const end = () => {
    socket.destroy();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
  };
  socket.on('error', end);
  socket.on('close', end);
  ws.on('close', end);
  ws.on('error', end);
}

export async function startWsProxy(
  options: { port?: number; allow?: string[]; defaultTarget?: string; delayMs?: number } = {},
): Promise<WsProxy> {
  const defaultTarget = options.defaultTarget ?? '127.0.0.1:5432';
  const allow = new Set(options.allow ?? [defaultTarget, 'localhost:5432']);
  const server: Server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required');
  });
  const state: ProxyState = { delayMs: options.delayMs ?? 0, trips: 0, opened: 0 };
  const wss = new WebSocketServer({
    server,
    verifyClient: (_info, done) => {
      const accept = () => {
        state.trips++;
        done(true);
      };
      if (state.delayMs > 0) setTimeout(accept, state.delayMs);
      else accept();
    },
  });
  wss.on('connection', (ws, req) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const target = url.searchParams.get('address') ?? defaultTarget;
    if (!allow.has(target)) {
      ws.close(1008, `address not allowed: ${target}`);
      return;
    }
    state.opened++;
    pipe(ws, target, state);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    connections: () => state.opened,
    roundTrips: () => state.trips,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// `tsx scripts/edge/ws-proxy.ts [port]`: run it by hand next to `wrangler dev`.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'))) {
  const proxy = await startWsProxy({ port: Number(process.argv[2] ?? 8890) });
  console.log(`ws-proxy on ws://${proxy.address}/v1 -> Postgres (NEON_WS_PROXY=${proxy.address})`);
}
