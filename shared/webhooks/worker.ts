import type { EventKicker } from '../runtime/services';
import {
  type AttemptResult,
  claimDue,
  type DeliveryDeps,
  dispatchEvents,
  leaseMs,
  nextDueAt,
  outstandingWork,
  performAttempt,
} from './delivery';

/**
 * The embedded runtime's delivery scheduler: a loop that fans out the outbox and sends due attempts.
 * It wakes on `kick()` (an action just committed an event), when an attempt finishes, when the
 * next retry falls due, and at least every `pollMs`. The database is the schedule: claims carry a
 * lease, so several processes can run this loop on one database without sending an attempt twice,
 * and a process killed mid-schedule leaves nothing behind that a restart does not pick up.
 */
export interface DeliveryWorker extends EventKicker {
  start(): void;
  /** stops the loop and waits for attempts in flight (each bounded by WEBHOOK_TIMEOUT_MS) */
  stop(): Promise<void>;
  /** resolves once no event is undispatched, no delivery is pending and nothing is in flight */
  settle(options?: { timeoutMs?: number }): Promise<void>;
  /** attempts in flight right now */
  readonly inFlight: number;
  /** called after every recorded attempt (benchmark, diagnostics) */
  onAttempt?: (result: AttemptResult) => void;
}

export interface WorkerOptions {
  /** parallel attempts per process (default 32) */
  concurrency?: number;
  /** longest sleep between polls (default 250 ms) */
  pollMs?: number;
}

/** Outbox batches (of 100 events) fanned out before the worker turns to sending again. */
const DISPATCH_BATCHES_PER_CYCLE = 5;

export function createDeliveryWorker(deps: DeliveryDeps, options: WorkerOptions = {}): DeliveryWorker {
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 250;
  const lease = leaseMs(deps.config);
  const inflight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let kicked = false;

  const poke = () => {
    kicked = true;
    const w = wake;
    wake = null;
    w?.();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (kicked || !running) return resolve();
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const log = (msg: string, err: unknown) =>
    deps.logger.warn({ error: String((err as Error)?.message ?? err) }, msg);

  /** Fans out a bounded number of outbox batches, then claims due attempts: under a steady stream
   * of new events an unbounded fan-out loop would never get to sending anything. */
  async function cycle(): Promise<{ claimed: number; moreEvents: boolean }> {
    let moreEvents = false;
    for (let i = 0; i < DISPATCH_BATCHES_PER_CYCLE; i++) {
      if (!running) return { claimed: 0, moreEvents: false };
      const { events } = await dispatchEvents(deps.db);
      moreEvents = events > 0;
      if (!moreEvents) break;
    }
    const free = concurrency - inflight.size;
    if (free <= 0) return { claimed: 0, moreEvents };
    const claimed = await claimDue(deps.db, free, lease);
    for (const row of claimed) {
      const p: Promise<void> = performAttempt(deps, row)
        .then((result) => worker.onAttempt?.(result))
        .catch((err) => log('webhook attempt failed', err))
        .finally(() => {
          inflight.delete(p);
          poke();
        });
      inflight.add(p);
    }
    return { claimed: claimed.length, moreEvents };
  }

  async function run() {
    while (running) {
      kicked = false;
      let delay = pollMs;
      try {
        const { claimed, moreEvents } = await cycle();
        if (moreEvents || (claimed > 0 && inflight.size < concurrency)) continue; // more may be waiting
        if (inflight.size < concurrency) {
          const next = await nextDueAt(deps.db);
          if (next) delay = Math.max(5, Math.min(pollMs, next.getTime() - Date.now()));
        }
      } catch (err) {
        if (!running) break;
        log('webhook dispatcher cycle failed', err);
      }
      await sleep(delay);
    }
  }

  const worker: DeliveryWorker = {
    kick: poke,
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      poke();
      await loop;
      loop = null;
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    async settle({ timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const work = await outstandingWork(deps.db);
        if (work.events === 0 && work.pending === 0 && inflight.size === 0) return;
        if (Date.now() > deadline)
          throw new Error(`webhooks did not settle: ${JSON.stringify({ ...work, inFlight: inflight.size })}`);
        poke();
        await new Promise((r) => setTimeout(r, 15));
      }
    },
    get inFlight() {
      return inflight.size;
    },
  };
  return worker;
}
