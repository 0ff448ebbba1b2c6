/**
 * A small Upstash-REST-compatible server for tests: it speaks the protocol `@upstash/redis` uses
 * (POST / with a JSON command array, POST /pipeline and /multi-exec with an array of commands,
 * `Authorization: Bearer <token>`, `Upstash-Encoding: base64`) and forwards every command to a real
 * Redis over RESP (a tiny client on node:net; no extra packages). EVAL, EVALSHA and SCRIPT LOAD are
 * ordinary commands to it, so `@upstash/redis`'s `Script` and `@upstash/ratelimit` work unchanged.
 *
 * Test knobs: `delayMs` (answer slowly, to test limiter timeouts; the edge bench's round-trip time),
 * `down` (answer 503) and `fault` (test:faults: `refuse` closes the port until cleared, `stall`
 * holds every request unanswered until cleared); `requests` counts round trips, `trace` times them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

type RespValue = string | number | null | RespValue[] | RespError;
class RespError {
  constructor(readonly message: string) {}
}

function encodeCommand(args: readonly unknown[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const text = Buffer.from(
      typeof arg === 'string'
        ? arg
        : typeof arg === 'object' && arg !== null
          ? JSON.stringify(arg)
          : String(arg),
    );
    parts.push(Buffer.from(`$${text.length}\r\n`), text, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one RESP value at `pos`; `null` result means "need more bytes". */
function parseReply(buf: Buffer, pos: number): { value: RespValue; next: number } | null {
  if (pos >= buf.length) return null;
  const lineEnd = buf.indexOf('\r\n', pos);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[pos]!);
  const line = buf.toString('utf8', pos + 1, lineEnd);
  const after = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, next: after };
    case '-':
      return { value: new RespError(line), next: after };
    case ':':
      return { value: Number(line), next: after };
    case '$': {
      const len = Number(line);
      if (len < 0) return { value: null, next: after };
      if (buf.length < after + len + 2) return null;
      return { value: buf.toString('utf8', after, after + len), next: after + len + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let p = after;
      for (let i = 0; i < n; i++) {
        const item = parseReply(buf, p);
        if (!item) return null;
        items.push(item.value);
        p = item.next;
      }
      return { value: items, next: p };
    }
    default:
      throw new Error(`unexpected RESP type ${type}`);
  }
}

/** Sends `commands` on a fresh connection and resolves with exactly that many replies. */
function sendCommands(host: string, port: number, commands: unknown[][]): Promise<RespValue[]> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host, port });
    let buf = Buffer.alloc(0);
    const replies: RespValue[] = [];
    socket.on('connect', () => socket.write(Buffer.concat(commands.map(encodeCommand))));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      let pos = 0;
      for (;;) {
        const parsed = parseReply(buf, pos);
        if (!parsed) break;
        replies.push(parsed.value);
        pos = parsed.next;
      }
      buf = buf.subarray(pos);
      if (replies.length >= commands.length) {
        socket.end();
        resolve(replies);
      }
    });
    socket.on('error', reject);
  });
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** RESP value to Upstash's JSON `result` (strings base64 when the client asked for it). */
function toResult(value: RespValue, base64: boolean): unknown {
  if (value instanceof RespError) return undefined;
  if (Array.isArray(value)) return value.map((v) => toResult(v, base64));
  if (typeof value === 'string') return base64 && value !== 'OK' ? b64(value) : value;
  return value;
}

const entry = (value: RespValue, base64: boolean) =>
  value instanceof RespError ? { error: value.message } : { result: toResult(value, base64) };

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
}

type Answer = [status: number, body: unknown];
interface RedisAt {
  host: string;
  port: number;
}

/** One REST request checked (outage, token, method) and its command or batch answered. */
async function answerRequest(
  req: IncomingMessage,
  redis: RedisAt,
  token: string,
  state: { delayMs: number; down: boolean; commands: string[] },
): Promise<Answer> {
  if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
  if (state.down) return [503, { error: 'service unavailable' }];
  if (req.headers.authorization !== `Bearer ${token}`) return [401, { error: 'Unauthorized' }];
  if (req.method !== 'POST') return [405, { error: 'Method not allowed' }];
  const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
  const body = await readBody(req);
  const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
  if (path === '/pipeline' || path === '/multi-exec') {
    if (!Array.isArray(body) || !body.every(Array.isArray))
      return [400, { error: 'ERR expected an array of commands' }];
    const commands = body as unknown[][];
    state.commands.push(...commands.map((c) => String(c[0]).toLowerCase()));
    return path === '/pipeline'
      ? answerPipeline(redis, commands, base64)
      : answerTransaction(redis, commands, base64);
  }
  if (!Array.isArray(body) || body.length === 0) return [400, { error: 'ERR expected a command array' }];
  state.commands.push(String(body[0]).toLowerCase());
  const [reply] = await sendCommands(redis.host, redis.port, [body as unknown[]]);
  if (reply instanceof RespError) return [400, { error: reply.message }];
  return [200, { result: toResult(reply!, base64) }];
}

/** /pipeline: each command's own result or error, in order. */
async function answerPipeline(redis: RedisAt, commands: unknown[][], base64: boolean): Promise<Answer> {
  const replies = await sendCommands(redis.host, redis.port, commands);
  return [200, replies.map((r) => entry(r, base64))];
}

/** /multi-exec: the commands in MULTI/EXEC; a queueing error or an aborted EXEC answers 400. */
async function answerTransaction(redis: RedisAt, commands: unknown[][], base64: boolean): Promise<Answer> {
  const replies = await sendCommands(redis.host, redis.port, [['MULTI'], ...commands, ['EXEC']]);
  const exec = replies[replies.length - 1]!;
  if (exec instanceof RespError || !Array.isArray(exec)) {
    const queued = replies.find((r) => r instanceof RespError) as RespError | undefined;
    return [400, { error: queued?.message ?? (exec as RespError)?.message ?? 'EXECABORT' }];
  }
  return [200, exec.map((r) => entry(r, base64))];
}

/** One round trip as the adapter saw it (performance.now() of this process), with its first command. */
export interface RedisTrip {
  start: number;
  end: number;
  what: string;
}

export type RedisFault = 'refuse' | 'stall' | null;

/** One request answered, counted and (when tracing) timed. */
async function respond(
  req: IncomingMessage,
  res: ServerResponse,
  redis: RedisAt,
  token: string,
  state: { delayMs: number; down: boolean; commands: string[]; requests: number; trace: RedisTrip[] | null },
) {
  const start = performance.now();
  const first = state.commands.length;
  let answer: Answer;
  try {
    answer = await answerRequest(req, redis, token, state);
  } catch (err) {
    answer = [500, { error: String((err as Error).message ?? err) }];
  }
  state.requests++;
  state.trace?.push({ start, end: performance.now(), what: state.commands.slice(first).join('+') });
  res.writeHead(answer[0], { 'content-type': 'application/json' });
  res.end(JSON.stringify(answer[1]));
}

/** Puts a fault in place or clears it: `refuse` stops listening, `stall` holds answers until cleared. */
function faultSwitch(
  server: Server,
  port: number,
  state: { fault: RedisFault },
  stalled: Set<ServerResponse>,
) {
  return (fault: RedisFault) => {
    const was = state.fault;
    state.fault = fault;
    if (was === 'stall' && fault !== 'stall') {
      for (const res of stalled) res.socket?.destroy();
      stalled.clear();
    }
    if (fault === 'refuse' && was !== 'refuse') {
      server.close();
      server.closeAllConnections();
    }
    if (was === 'refuse' && fault !== 'refuse') server.listen(port, '127.0.0.1');
  };
}

export interface UpstashRestAdapter {
  url: string;
  token: string;
  server: Server;
  /** answer every request this much later (timeouts; a network distance) */
  delayMs: number;
  /** HTTP requests answered so far: each one a round trip */
  requests: number;
  /** answer 503 to everything (outage) */
  down: boolean;
  /** commands received, for assertions */
  commands: string[];
  /** when set, every answered request is appended here */
  trace: RedisTrip[] | null;
  /** the failure being played; null = healthy */
  fault: RedisFault;
  close(): Promise<void>;
}

export async function startUpstashRestAdapter(
  options: { redisHost?: string; redisPort?: number; token?: string; port?: number; delayMs?: number } = {},
): Promise<UpstashRestAdapter> {
  const redisHost = options.redisHost ?? '127.0.0.1';
  const redisPort = options.redisPort ?? 6379;
  const token = options.token ?? 'test-upstash-token';
  const state = {
    delayMs: options.delayMs ?? 0,
    down: false,
    commands: [] as string[],
    requests: 0,
    trace: null as RedisTrip[] | null,
    fault: null as RedisFault,
  };
  const stalled = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    if (state.fault === 'stall') stalled.add(res);
    else void respond(req, res, { host: redisHost, port: redisPort }, token, state);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const setFault = faultSwitch(server, port, state, stalled);
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    server,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    get requests() {
      return state.requests;
    },
    set requests(v: number) {
      state.requests = v;
    },
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
    },
    commands: state.commands,
    get trace() {
      return state.trace;
    },
    set trace(v: RedisTrip[] | null) {
      state.trace = v;
    },
    get fault() {
      return state.fault;
    },
    set fault(v: RedisFault) {
      setFault(v);
    },
    close: () =>
      new Promise<void>((resolve) => {
        setFault(null);
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Is a Redis answering at host:port? (With CI=true a missing Redis must fail, not skip.) */
export async function redisReachable(host = '127.0.0.1', port = 6379): Promise<boolean> {
  try {
    const [pong] = await sendCommands(host, port, [['PING']]);
    return pong === 'PONG';
  } catch {
    return false;
  }
}
