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

/** Bytes gathered before they are written at once, and the longest a line waits. */
const BATCH_BYTES = 16_000;
const BATCH_DELAY_MS = 100;

/** What batchedLines hands its batches to: pino's writer (sonic-boom) in buffer mode. */
export interface BatchTarget {
  write(chunk: Buffer): unknown;
  flushSync(): void;
}

/**
 * Lines gathered and handed to pino's stdout writer (sonic-boom) in batches: when the next line
 * would not fit in BATCH_BYTES, or BATCH_DELAY_MS after the first line of a batch. Each line is
 * encoded into the batch's buffer as it comes, while it is fresh: appended to a string instead, a
 * batch becomes a rope of a thousand small pieces, scattered over the young generation by the time
 * it is written, and walking it costs more than building the lines did (docs/benchmarks.md, "The
 * refusal (f)"). The writer is synchronous, pino's own default: one `write(2)` per batch from the
 * event loop. Asynchronous, each batch would go to libuv's threadpool, and the thread's wake-up and
 * completion callback cost a refused request about a tenth of its throughput on two cores. A log
 * reader slower than the server holds the server back rather than letting pending lines grow
 * without bound. A quiet server still shows a line within 0.1 s; on exit whatever is pending is
 * written.
 */
export function batchedLines(target: BatchTarget): DestinationStream & { flushSync(): void } {
  // a fresh buffer per batch: the writer may keep a handed-over one until the descriptor takes it
  let batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  let used = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (used === 0) return;
    const chunk = batch.subarray(0, used);
    batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
    used = 0;
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
      // UTF-8 takes at most 3 bytes per UTF-16 unit: what might not fit goes after the batch
      if (used + line.length * 3 > BATCH_BYTES) {
        handOver();
        if (line.length * 3 > BATCH_BYTES) {
          target.write(Buffer.from(line));
          return;
        }
      }
      used += batch.write(line, used);
      if (!timer) {
        timer = setTimeout(handOver, BATCH_DELAY_MS);
        timer.unref(); // a pending log line never keeps the process alive (exit writes it)
      }
    },
    flushSync,
  };
}

export function createNodeLogger(options: NodeLoggerOptions): NodeLogger {
  const destination =
    options.destination ??
    // (sonic-boom's types name only strings; in buffer mode it takes the batches' Buffers)
    batchedLines(pino.destination({ dest: 1, sync: true, contentMode: 'buffer' }) as unknown as BatchTarget);
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
