// Node's logger: pino (JSON lines; Node-only, so nothing a Worker imports may reach this file:
// scripts/check-runtime-parity.ts bundles every Worker entry and would fail). Import it as
// `logger.node.js`: tsx takes a bare `.node` ending for a native addon.
import pino, { type DestinationStream } from 'pino';
import type { Logger, LogLevel } from './logger';

export interface NodeLoggerOptions {
  level: LogLevel;
  /** where lines go; default: stdout, a chunk per event-loop turn (a log line never blocks a request) */
  destination?: DestinationStream;
}

export interface NodeLogger extends Logger {
  /** writes every line logged so far (shutdown) */
  flush(): void;
}

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * The lines of one event-loop turn, handed to pino's asynchronous stdout writer (sonic-boom) as one
 * chunk. sonic-boom measures its pending buffer (`Buffer.byteLength` of up to 16 KiB) on every
 * write: a line per request paid that each time, the access log's largest cost; a chunk per turn
 * pays it once. On exit, whatever is pending is written synchronously.
 */
export function linesPerTurn(target: SonicBoom): DestinationStream & { flushSync(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
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
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
    },
    flushSync,
  };
}

export function createNodeLogger(options: NodeLoggerOptions): NodeLogger {
  const destination =
    options.destination ?? linesPerTurn(pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  const logger = pino({ level: options.level, base: undefined }, destination);
  return Object.assign(logger, {
    flush() {
      if ('flushSync' in destination && typeof destination.flushSync === 'function') destination.flushSync();
      else logger.flush();
    },
  });
}
