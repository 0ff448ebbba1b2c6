// Node's logger: pino (JSON lines; Node-only, so nothing a Worker imports may reach this file:
// scripts/check-runtime-parity.ts bundles every Worker entry and would fail). Import it as
// `logger.node.js`: tsx takes a bare `.node` ending for a native addon.
import pino, { type DestinationStream } from 'pino';
import { framedInfoLine, type Logger, type LogLevel } from './logger';

export interface NodeLoggerOptions {
  level: LogLevel;
  /** where lines go; default: stdout, written asynchronously in batches (a log line never blocks a request) */
  destination?: DestinationStream;
}

export interface NodeLogger extends Logger {
  /** writes every line logged so far (shutdown) */
  flush(): void;
}

type SonicBoom = ReturnType<typeof pino.destination>;

/** Bytes of lines gathered before they are written at once, and the longest a line waits. */
const BATCH_BYTES = 16_000;
const BATCH_DELAY_MS = 100;

/**
 * Lines gathered and handed to pino's asynchronous stdout writer (sonic-boom) in batches: at
 * BATCH_BYTES, or BATCH_DELAY_MS after the first line of a batch. Each hand-over can cost an
 * `fs.write` dispatched to libuv's threadpool, which a profile of the refusal benchmark showed at
 * ~16 µs of CPU per request while it happened per line; sonic-boom also measures its pending buffer
 * on every write. A quiet server still shows a line within 0.1 s; on exit whatever is pending is
 * written synchronously.
 */
export function batchedLines(target: SonicBoom): DestinationStream & { flushSync(): void } {
  let pending: string[] = [];
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    bytes = 0;
    target.write(chunk);
  };
  const flushSync = () => {
    handOver();
    try {
      target.flushSync();
    } catch {
      /* not open yet, or already closed: nothing more can be written */
    }
  };
  process.once('exit', flushSync);
  return {
    write(line: string) {
      pending.push(line);
      bytes += line.length;
      if (bytes >= BATCH_BYTES) handOver();
      else if (!timer) {
        timer = setTimeout(handOver, BATCH_DELAY_MS);
        timer.unref(); // a pending log line never keeps the process alive (exit writes it)
      }
    },
    flushSync,
  };
}

export function createNodeLogger(options: NodeLoggerOptions): NodeLogger {
  const destination = options.destination ?? batchedLines(pino.destination({ dest: 1, sync: false }));
  const logger = pino({ level: options.level, base: undefined }, destination);
  return Object.assign(logger, {
    // straight to pino's destination, as pino itself would write it (its lines end in a newline)
    infoMembers(members: string, msg: string) {
      if (logger.isLevelEnabled('info')) destination.write(`${framedInfoLine(members, msg)}\n`);
    },
    flush() {
      if ('flushSync' in destination && typeof destination.flushSync === 'function') destination.flushSync();
      else logger.flush();
    },
  });
}
