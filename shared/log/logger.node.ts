// Node's logger: pino (JSON lines; Node-only, so nothing a Worker imports may reach this file:
// scripts/check-runtime-parity.ts bundles every Worker entry and would fail). Import it as
// `logger.node.js`: tsx takes a bare `.node` ending for a native addon.
import pino, { type DestinationStream } from 'pino';
import { framedInfoLine, type Logger, type LogLevel } from './logger';

export interface NodeLoggerOptions {
  level: LogLevel;
  /** where lines go; default: stdout, in batches (batchedLines) */
  destination?: DestinationStream;
}

export interface NodeLogger extends Logger {
  /** writes every line logged so far (shutdown) */
  flush(): void;
}

type SonicBoom = ReturnType<typeof pino.destination>;

/** Characters (bytes, for ASCII lines) gathered before they are written at once, and the longest a line waits. */
const BATCH_BYTES = 16_000;
const BATCH_DELAY_MS = 100;

/**
 * Lines gathered and handed to pino's stdout writer (sonic-boom) in batches: at BATCH_BYTES, or
 * BATCH_DELAY_MS after the first line of a batch. The writer is synchronous, pino's own default:
 * one `write(2)` per batch from the event loop. Asynchronous, each batch went to libuv's threadpool,
 * and the thread's wake-up and completion callback cost the refused request of the benchmark about
 * a tenth of its throughput on two cores (README, Benchmarks); per line, it had cost ~16 µs each.
 * A log reader slower than the server holds the server back rather than letting pending lines grow
 * without bound. A quiet server still shows a line within 0.1 s; on exit whatever is pending is
 * written.
 */
export function batchedLines(target: SonicBoom): DestinationStream & { flushSync(): void } {
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | null = null;
  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const chunk = pending;
    pending = '';
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
      pending += line;
      if (pending.length >= BATCH_BYTES) handOver();
      else if (!timer) {
        timer = setTimeout(handOver, BATCH_DELAY_MS);
        timer.unref(); // a pending log line never keeps the process alive (exit writes it)
      }
    },
    flushSync,
  };
}

export function createNodeLogger(options: NodeLoggerOptions): NodeLogger {
  const destination = options.destination ?? batchedLines(pino.destination({ dest: 1, sync: true }));
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
