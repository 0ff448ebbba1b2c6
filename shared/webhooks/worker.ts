import type { EventKicker } from '../context/services';
import {
  type AttemptMade,
  type AttemptResult,
  type ClaimedDelivery,
  claimDue,
  type DeliveryDeps,
  dispatchEvents,
  leaseMs,
  makeAttempt,
  nextDueAt,
  outstandingWork,
  recordAttempts,
  releaseClaims,
} from './delivery';

/**
 * The embedded runtime's delivery scheduler: a loop that fans out the outbox and sends due attempts.
 * It wakes on `kick()` (an action just committed an event: fan out, then claim), when an attempt
 * is recorded while due attempts were left behind for want of a free slot (claim more), when a retry
 * falls due, and at least every `pollMs` (fan out what other processes committed, then claim). Outcomes of attempts that finish together are recorded
 * in one statement. The database is the schedule: claims carry a
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

/**
 * Attempts claimed ahead of the free slots, as a share of `concurrency`: a slot freed while the next
 * claim is in flight starts at once from them (without them, under a backlog, each freed slot sits
 * idle for a claim's round trip). A claimed attempt not started while its
 * lease still covers a whole attempt plus START_MARGIN_MS is given back, never sent late.
 */
const CLAIM_AHEAD = 2;
const START_MARGIN_MS = 1_000;

/** Outbox batches (of DISPATCH_BATCH events) fanned out before the worker turns to sending again. */
const DISPATCH_BATCHES_PER_CYCLE = 5;
const DISPATCH_BATCH = 100;

export function createDeliveryWorker(deps: DeliveryDeps, options: WorkerOptions = {}): DeliveryWorker {
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 250;
  const lease = leaseMs(deps.config);
  /** how long a claimed attempt may wait for a slot: its lease must still cover the attempt */
  const startWithinMs = lease - deps.config.WEBHOOK_TIMEOUT_MS - START_MARGIN_MS;
  const claimAhead = Math.ceil(concurrency * CLAIM_AHEAD);
  const inflight = new Set<Promise<void>>();
  /** claimed attempts waiting for a free slot, oldest first */
  let ready: { row: ClaimedDelivery; claimedAt: number }[] = [];
  /** outcomes of answered attempts not yet written */
  const recordings = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let woken = false;
  /** the outbox may hold events: set by kick() and by a poll timeout, cleared by a fan-out that finds none */
  let outboxDirty = true;
  let lastFanOut = 0;
  /** the last claim took every due attempt there was (fewer than the free slots) */
  let drained = false;

  const poke = () => {
    woken = true;
    const w = wake;
    wake = null;
    w?.();
  };
  /** wakes the loop when a retry this process scheduled falls due (no query needed to know it) */
  const wakeAt = (at: Date) => setTimeout(poke, Math.max(0, at.getTime() - Date.now()) + 1).unref();
  const kick = () => {
    outboxDirty = true;
    poke();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || !running) return resolve();
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

  // Outcomes wait here while a recording statement is in flight; the next one takes them all.
  let unrecorded: { made: AttemptMade; done: (r: AttemptResult | null) => void }[] = [];
  let recording = false;
  async function recordPending() {
    if (recording) return;
    recording = true;
    try {
      while (unrecorded.length > 0) {
        const batch = unrecorded;
        unrecorded = [];
        try {
          const results = await recordAttempts(
            deps.db,
            batch.map((b) => b.made),
          );
          for (const [i, b] of batch.entries()) b.done(results[i]!);
        } catch (err) {
          // not recorded: the lease expires and the attempt is made again, as when a process dies
          log('webhook attempt not recorded', err);
          for (const b of batch) b.done(null);
        }
      }
    } finally {
      recording = false;
    }
  }
  const record = (made: AttemptMade) =>
    new Promise<AttemptResult | null>((done) => {
      unrecorded.push({ made, done });
      void recordPending();
    });

  /** Gives back claims not to be used here; failing that, their leases run out as if the process had died. */
  const giveBack = (rows: ClaimedDelivery[]) => {
    if (rows.length > 0) releaseClaims(deps.db, rows).catch((err) => log('webhook claims not released', err));
  };

  /** Fills the free slots from the claimed attempts; asks for a claim when they run low. */
  function startReady() {
    const stale: ClaimedDelivery[] = [];
    while (inflight.size < concurrency && ready.length > 0) {
      const { row, claimedAt } = ready.shift()!;
      if (Date.now() - claimedAt > startWithinMs) stale.push(row);
      else startAttempt(row);
    }
    giveBack(stale);
    if (!drained && ready.length < claimAhead / 2) poke();
  }

  function startAttempt(row: ClaimedDelivery) {
    // the slot is free once the request is answered; its outcome is written with the next batch
    // (the claim's lease keeps the row from being claimed again meanwhile)
    const p: Promise<void> = makeAttempt(deps, row)
      .then((made) => {
        const r: Promise<void> = record(made)
          .then((result) => {
            if (!result) return;
            if (result.status === 'pending' && result.nextAttemptAt) wakeAt(result.nextAttemptAt);
            worker.onAttempt?.(result);
          })
          .catch((err) => log('webhook attempt failed', err))
          .finally(() => recordings.delete(r));
        recordings.add(r);
      })
      .catch((err) => log('webhook attempt failed', err))
      .finally(() => {
        inflight.delete(p);
        if (running) startReady();
      });
    inflight.add(p);
  }

  /** Fans out a bounded number of outbox batches (when the outbox may hold events), then claims due
   * attempts: under a steady stream of new events an unbounded fan-out would never get to sending. */
  async function cycle(): Promise<{ claimed: number; moreEvents: boolean }> {
    drained = false;
    let moreEvents = false;
    if (outboxDirty) {
      outboxDirty = false;
      lastFanOut = Date.now();
      for (let i = 0; i < DISPATCH_BATCHES_PER_CYCLE; i++) {
        if (!running) return { claimed: 0, moreEvents: false };
        const { events } = await dispatchEvents(deps.db, DISPATCH_BATCH);
        moreEvents = events === DISPATCH_BATCH;
        if (!moreEvents) break;
      }
      if (moreEvents) outboxDirty = true;
    }
    const wanted = concurrency + claimAhead - inflight.size - ready.length;
    if (wanted <= 0) return { claimed: 0, moreEvents };
    const claimed = await claimDue(deps.db, wanted, lease);
    drained = claimed.length < wanted;
    const claimedAt = Date.now();
    for (const row of claimed) ready.push({ row, claimedAt });
    startReady();
    return { claimed: claimed.length, moreEvents };
  }

  async function run() {
    while (running) {
      woken = false;
      let delay = pollMs;
      try {
        const { claimed, moreEvents } = await cycle();
        if (moreEvents || (claimed > 0 && !drained)) continue; // more may be waiting
        if (inflight.size === 0 && ready.length === 0) {
          // idle: sleep until the next attempt of any process falls due (own retries also set wakeAt)
          const next = await nextDueAt(deps.db);
          if (next) delay = Math.max(5, Math.min(pollMs, next.getTime() - Date.now()));
        }
      } catch (err) {
        if (!running) break;
        log('webhook dispatcher cycle failed', err);
      }
      await sleep(delay);
      // other processes' events have no kick here: look at the outbox at least every pollMs
      if (Date.now() - lastFanOut >= pollMs) outboxDirty = true;
    }
  }

  const worker: DeliveryWorker = {
    kick,
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      kick();
      await loop;
      loop = null;
      const unstarted = ready.map((r) => r.row);
      ready = [];
      await releaseClaims(deps.db, unstarted).catch((err) => log('webhook claims not released', err));
      while (inflight.size > 0 || recordings.size > 0) await Promise.allSettled([...inflight, ...recordings]);
    },
    async settle({ timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const work = await outstandingWork(deps.db);
        if (
          work.events === 0 &&
          work.pending === 0 &&
          inflight.size === 0 &&
          ready.length === 0 &&
          recordings.size === 0
        )
          return;
        if (Date.now() > deadline)
          throw new Error(`webhooks did not settle: ${JSON.stringify({ ...work, inFlight: inflight.size })}`);
        kick();
        await new Promise((r) => setTimeout(r, 15));
      }
    },
    get inFlight() {
      return inflight.size;
    },
  };
  return worker;
}
