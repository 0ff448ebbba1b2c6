/**
 * The one logger the services hold (shared/context/services.ts). Its shape is the part of pino's API
 * we use, so pino's logger is one on Node (logger.node.ts) and Workers get JSON lines on the console
 * (below), which Workers Logs parses into fields. Call sites pass fields first, then a message.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type LogMethod = (fields: Record<string, unknown>, msg: string) => void;

export interface Logger {
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  /** lets a hot path skip building fields nobody will read */
  isLevelEnabled(level: LogLevel): boolean;
  /**
   * An `info` line whose fields the caller has already written as JSON members (`"a":1,"b":"x"`),
   * framed like every other line (level, time, the fields, msg). For the access log, a line per
   * request of a fixed shape, where pino's generic serializer would cost more than the rest of the
   * line's logging (docs/benchmarks.md, "The refusal (f)"). Only for fields written with JSON.stringify.
   */
  infoMembers(members: string, msg: string): void;
}

// A busy server writes many lines a millisecond, nearly all with the same message (the access
// line's "request"): each is turned into text once, not once per line.
let lastTime = 0;
let lastTimeText = '0';
const timeText = (): string => {
  const now = Date.now();
  if (now !== lastTime) {
    lastTime = now;
    lastTimeText = String(now);
  }
  return lastTimeText;
};
let lastMsg = '';
let lastMsgText = '""';
const msgText = (msg: string): string => {
  if (msg !== lastMsg) {
    lastMsg = msg;
    lastMsgText = JSON.stringify(msg);
  }
  return lastMsgText;
};

/** The line `infoMembers` writes, on either runtime: pino's framing, the caller's members inside. */
export const framedInfoLine = (members: string, msg: string): string =>
  `{"level":30,"time":${timeText()},${members},"msg":${msgText(msg)}}`;

/** pino's numbers, so Node and Workers lines sort and filter alike */
const LEVEL_VALUES: Record<LogLevel, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** Where console lines go: `console.log` on Workers; a test may pass its own. */
export type LineSink = (line: string) => void;

/**
 * JSON lines on the console (Workers, and anywhere pino cannot run). Same fields as pino's lines:
 * `level` as pino's number, `time` in ms, `msg`.
 */
export function createConsoleLogger(
  level: LogLevel = 'info',
  sink: LineSink = (line) => console.log(line),
): Logger {
  const threshold = LEVEL_VALUES[level];
  const at =
    (name: Exclude<LogLevel, 'silent'>): LogMethod =>
    (fields, msg) => {
      const value = LEVEL_VALUES[name];
      if (value < threshold) return;
      sink(JSON.stringify({ level: value, time: Date.now(), ...fields, msg }));
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    isLevelEnabled: (l) => LEVEL_VALUES[l] >= threshold,
    infoMembers(members, msg) {
      if (LEVEL_VALUES.info >= threshold) sink(framedInfoLine(members, msg));
    },
  };
}

/** An error's loggable form: message and stack, never the object (it may hold request data). */
export const errorField = (err: unknown): string =>
  err instanceof Error ? (err.stack ?? err.message) : String(err);

/**
 * For pieces built outside a runtime (scripts, a test that assembles one part by hand): warnings
 * and errors as JSON lines on stderr. A runtime passes its own logger instead.
 */
export const standaloneLogger: Logger = createConsoleLogger('warn', (line) => console.error(line));
