// Node's logger: pino (JSON lines; Node-only, so nothing a Worker imports may reach this file:
// scripts/check-runtime-parity.ts bundles every Worker entry and would fail). Import it as
// `logger.node.js`: tsx takes a bare `.node` ending for a native addon.
import pino, { type DestinationStream } from 'pino';
import type { Logger, LogLevel } from './logger';

export interface NodeLoggerOptions {
  level: LogLevel;
  /** where lines go; default: stdout through an asynchronous buffer (a log line never blocks a request) */
  destination?: DestinationStream;
}

export interface NodeLogger extends Logger {
  /** writes what the asynchronous buffer holds (shutdown) */
  flush(): void;
}

export function createNodeLogger(options: NodeLoggerOptions): NodeLogger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino({ level: options.level, base: undefined }, destination);
}
