import type { Kysely } from 'kysely';
import type { EventKicker } from '../context/services';
import type { Database } from '../db/schema';
import {
  type AttemptMade,
  type AttemptResult,
  type ClaimedDelivery,
  claimPaced,
  type DeliveryDeps,
  dispatchEvents,
  leaseMs,
  makeAttempt,
  nextDueAt,
  outstandingWork,
  recordAndNote,
  releaseClaims,
} from './delivery';
import { runDueProbes } from './health';
import { clearExpiredAttemptContent, SWEEP_EVERY_MS } from './retention';

/**
 * The embedded runtime's delivery scheduler: a loop that fans out the outbox and sends due attempts.
 * It wakes on `kick()` (an action just committed an event: fan out, then claim), when an attempt
 * is recorded while due attempts were left behind for want of a free slot (claim more), when a retry
 * falls due, and at least every `pollMs` (fan out what other processes committed, then claim).
 * Outcomes of attempts that finish together are recorded in one statement. The database is the
 * schedule: claims carry a lease, so several processes can run this loop on one database without
 * sending an attempt twice, and a process killed mid-schedule leaves nothing behind that a restart
 * does not pick up.
 *
 * Its parts, each with its own state: the Alarm (the loop's sleep and what ends it early), the
 * FanOut (outbox -> deliveries), the ClaimQueue (due attempts claimed ahead of the free slots), the
 * OutcomeRecorder (answered attempts written in batches) and the RetentionSweep (attempts' content
 * cleared after WEBHOOK_ATTEMPT_RETENTION_DAYS). `createDeliveryWorker` runs them in a loop.
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
 * claim is in flight starts at once from them instead of waiting for a claim's round trip. A claimed
 * attempt not started while its lease still covers a whole attempt plus START_MARGIN_MS is given
 * back, never sent late.
 */
const CLAIM_AHEAD = 2;
const START_MARGIN_MS = 1_000;

/** Events one fan-out takes at most (and FAN_OUT_MAX_DELIVERIES deliveries). */
const DISPATCH_BATCH = 100;

type Log = (msg: string, err: unknown) => void;

/** The loop's sleep: `poke()` ends it early, or makes the next one return at once. */
class Alarm {
  private woken = false;
  private wake: (() => void) | null = null;

  readonly poke = () => {
    this.woken = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  };

  /** pokes when a retry this process scheduled falls due (no query needed to know it) */
  at(when: Date) {
    setTimeout(this.poke, Math.max(0, when.getTime() - Date.now()) + 1).unref();
  }

  /** forgets earlier pokes: called as a cycle starts, which sees everything they announced */
  reset() {
    this.woken = false;
  }

  sleep(ms: number, running: boolean): Promise<void> {
    return new Promise((resolve) => {
      if (this.woken || !running) return resolve();
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * Outbox -> deliveries, one bounded batch per cycle: sends start while the rest of a burst is still
 * being written, the next cycle writes more while they are in flight, and under a steady stream of
 * new events the worker still gets to sending.
 */
class FanOut {
  /** the outbox may hold events: set by kick() and by a poll timeout, cleared by a fan-out that finds none */
  dirty = true;
  private lastAt = 0;

  constructor(private readonly db: Kysely<Database>) {}

  /** other processes' events come with no kick: look at the outbox at least every pollMs */
  lookAgainAfter(pollMs: number) {
    if (Date.now() - this.lastAt >= pollMs) this.dirty = true;
  }

  /** Fans out when the outbox may hold events; true when more are waiting than one batch took. */
  async run(running: () => boolean): Promise<boolean> {
    if (!this.dirty || !running()) return false;
    this.dirty = false;
    this.lastAt = Date.now();
    const { more } = await dispatchEvents(this.db, DISPATCH_BATCH);
    if (more) this.dirty = true;
    return more;
  }
}

/** Due attempts claimed (with a lease) ahead of the free slots, oldest first. */
class ClaimQueue {
  private ready: { row: ClaimedDelivery; claimedAt: number }[] = [];
  /** the last claim took every due attempt there was (fewer than it asked for) */
  drained = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly lease: number,
    /** how long a claimed attempt may wait for a slot: its lease must still cover the attempt */
    private readonly startWithinMs: number,
    private readonly log: Log,
  ) {}

  get length() {
    return this.ready.length;
  }

  /** Claims up to `wanted` due attempts (those their endpoint's pace lets start now); how many it got. */
  async claim(wanted: number): Promise<number> {
    const { go: claimed, later } = await claimPaced(this.deps.db, wanted, this.lease);
    this.drained = claimed.length + later.length < wanted;
    const claimedAt = Date.now();
    for (const row of claimed) this.ready.push({ row, claimedAt });
    return claimed.length;
  }

  /** Up to `free` claimed attempts to start now; those that waited too long are given back instead. */
  take(free: number): ClaimedDelivery[] {
    const start: ClaimedDelivery[] = [];
    const stale: ClaimedDelivery[] = [];
    while (start.length < free && this.ready.length > 0) {
      const { row, claimedAt } = this.ready.shift()!;
      if (Date.now() - claimedAt > this.startWithinMs) stale.push(row);
      else start.push(row);
    }
    if (stale.length > 0) this.giveBack(stale).catch((err) => this.log('webhook claims not released', err));
    return start;
  }

  /** Gives back every claim not started (a stopping worker's). */
  async releaseAll(): Promise<void> {
    const unstarted = this.ready.map((r) => r.row);
    this.ready = [];
    await this.giveBack(unstarted).catch((err) => this.log('webhook claims not released', err));
  }

  /** Due again at once for any process; failing that, the leases run out as if the process had died. */
  private giveBack(rows: ClaimedDelivery[]) {
    return releaseClaims(this.deps.db, rows);
  }
}

/**
 * Outcomes of answered attempts, written in batches: they wait here while a recording statement is
 * in flight, and the next statement takes them all. An outcome not recorded (the statement failed)
 * is made again when its lease expires, as when a process dies.
 */
class OutcomeRecorder {
  private waiting: { made: AttemptMade; done: (r: AttemptResult | null) => void }[] = [];
  private writing = false;
  /** outcomes not yet written and handed on: stop() and settle() wait for them */
  readonly inProgress = new Set<Promise<void>>();

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly log: Log,
  ) {}

  /** Writes `made` with the next batch, then hands its result to `after` (when it was recorded). */
  add(made: AttemptMade, after: (result: AttemptResult) => void) {
    const p: Promise<void> = new Promise<AttemptResult | null>((done) => {
      this.waiting.push({ made, done });
      void this.flush();
    })
      .then((result) => {
        if (result) after(result);
      })
      .catch((err) => this.log('webhook attempt failed', err))
      .finally(() => this.inProgress.delete(p));
    this.inProgress.add(p);
  }

  private async flush() {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        try {
          const results = await recordAndNote(
            this.deps,
            batch.map((b) => b.made),
          );
          for (const [i, b] of batch.entries()) b.done(results[i]!);
        } catch (err) {
          this.log('webhook attempt not recorded', err);
          for (const b of batch) b.done(null);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

/** Clears attempts' content past the retention days: when the worker starts, then every SWEEP_EVERY_MS. */
class RetentionSweep {
  private lastAt = -Infinity;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly days: number,
    private readonly log: Log,
  ) {}

  /** the next maybeRun sweeps whenever the last one was (a worker starting again) */
  dueNow() {
    this.lastAt = -Infinity;
  }

  /** Starts a sweep in the background when one is due (sending never waits for it). */
  maybeRun(keepGoing: () => boolean) {
    if (this.running || Date.now() - this.lastAt < SWEEP_EVERY_MS) return;
    this.lastAt = Date.now();
    this.running = clearExpiredAttemptContent(this.db, this.days, keepGoing)
      .then(() => {})
      .catch((err) => this.log('webhook attempt content not cleared', err))
      .finally(() => {
        this.running = null;
      });
  }

  /** the sweep in progress, if any */
  get current(): Promise<void> | null {
    return this.running;
  }
}

/**
 * Probes of failing endpoints (and their disable checks), at most every PROBE_CHECK_MS: one indexed
 * statement that finds nothing while every endpoint is healthy.
 */
class Probes {
  private lastAt = -Infinity;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly everyMs: number,
    private readonly log: Log,
  ) {}

  maybeRun() {
    if (this.running || Date.now() - this.lastAt < this.everyMs) return;
    this.lastAt = Date.now();
    this.running = runDueProbes(this.deps)
      .then(() => {})
      .catch((err) => this.log('webhook probes failed', err))
      .finally(() => {
        this.running = null;
      });
  }

  get current(): Promise<void> | null {
    return this.running;
  }
}

/** The attempts being made right now, one per slot; each answered one goes to the recorder. */
class Slots {
  readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly concurrency: number,
    private readonly recorder: OutcomeRecorder,
    private readonly log: Log,
  ) {}

  get free() {
    return this.concurrency - this.inflight.size;
  }

  /**
   * Makes the attempt; the slot is free once the request is answered (`freed` runs then), and its
   * outcome is written with the next batch (the claim's lease keeps the row from being claimed
   * again meanwhile), then handed to `recorded`.
   */
  start(row: ClaimedDelivery, recorded: (r: AttemptResult) => void, freed: () => void) {
    const p: Promise<void> = makeAttempt(this.deps, row)
      .then((made) => this.recorder.add(made, recorded))
      .catch((err) => this.log('webhook attempt failed', err))
      .finally(() => {
        this.inflight.delete(p);
        freed();
      });
    this.inflight.add(p);
  }
}

/** The loop over the parts: fan out, claim, fill the slots, sleep until there is more to do. */
class Dispatcher implements DeliveryWorker {
  onAttempt?: (result: AttemptResult) => void;
  private readonly pollMs: number;
  private readonly claimAhead: number;
  private readonly alarm = new Alarm();
  private readonly fanOut: FanOut;
  private readonly queue: ClaimQueue;
  private readonly recorder: OutcomeRecorder;
  private readonly slots: Slots;
  private readonly sweep: RetentionSweep;
  private readonly probes: Probes;
  private readonly log: Log;
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly isRunning = () => this.running;

  constructor(deps: DeliveryDeps, options: WorkerOptions) {
    // re-sends and probes are due at once: wake the loop (after whatever else the runtime asked)
    const queued = deps.queued;
    this.deps = {
      ...deps,
      queued: async (ids) => {
        await queued?.(ids);
        this.kick();
      },
    };
    deps = this.deps;
    const concurrency = options.concurrency ?? 32;
    const lease = leaseMs(deps.config);
    const log: Log = (msg, err) => deps.logger.warn({ error: String((err as Error)?.message ?? err) }, msg);
    this.log = log;
    this.pollMs = options.pollMs ?? 250;
    this.claimAhead = Math.ceil(concurrency * CLAIM_AHEAD);
    this.fanOut = new FanOut(deps.db);
    this.queue = new ClaimQueue(deps, lease, lease - deps.config.WEBHOOK_TIMEOUT_MS - START_MARGIN_MS, log);
    this.recorder = new OutcomeRecorder(deps, log);
    this.slots = new Slots(deps, concurrency, this.recorder, log);
    this.sweep = new RetentionSweep(deps.db, deps.config.WEBHOOK_ATTEMPT_RETENTION_DAYS, log);
    // the shortest probe gap is 60 units: looking four times a unit-minute keeps probes within a
    // quarter of it, and at most once a second costs one idle indexed read a second
    this.probes = new Probes(deps, Math.min(1000, deps.config.WEBHOOK_RETRY_UNIT_MS * 15), log);
  }
  private readonly deps: DeliveryDeps;

  readonly kick = () => {
    this.fanOut.dirty = true;
    this.alarm.poke();
  };

  get inFlight() {
    return this.slots.inflight.size;
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.sweep.dueNow();
    this.loop = this.run();
  }

  async stop() {
    this.running = false;
    this.kick();
    await this.loop;
    this.loop = null;
    await this.queue.releaseAll();
    await this.sweep.current;
    await this.probes.current;
    const { inflight } = this.slots;
    while (inflight.size > 0 || this.recorder.inProgress.size > 0)
      await Promise.allSettled([...inflight, ...this.recorder.inProgress]);
  }

  async settle({ timeoutMs = 30_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let work = { events: 0, pending: 0 };
    for (;;) {
      // while this process still has attempts of its own the answer is "not yet" without asking
      // the database: a count over the pending deliveries every few ms would take the database's
      // time from the work being waited for
      if (this.localWork() === 0) {
        work = await outstandingWork(this.deps.db);
        if (work.events === 0 && work.pending === 0 && this.localWork() === 0) return;
        this.kick();
      }
      if (Date.now() > deadline)
        throw new Error(`webhooks did not settle: ${JSON.stringify({ ...work, inFlight: this.inFlight })}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  }

  /** attempts this process holds: in flight, claimed ahead, or answered and not yet recorded */
  private localWork() {
    return this.slots.inflight.size + this.queue.length + this.recorder.inProgress.size;
  }

  private async run() {
    while (this.running) {
      this.alarm.reset();
      this.sweep.maybeRun(this.isRunning);
      this.probes.maybeRun();
      let delay = this.pollMs;
      try {
        const { claimed, moreEvents } = await this.cycle();
        if (moreEvents || (claimed > 0 && !this.queue.drained)) continue; // more may be waiting
        delay = await this.idleDelay();
      } catch (err) {
        if (!this.running) break;
        this.log('webhook dispatcher cycle failed', err);
      }
      await this.alarm.sleep(delay, this.running);
      this.fanOut.lookAgainAfter(this.pollMs);
    }
  }

  /** Fans out (when the outbox may hold events), then claims due attempts for the free slots. */
  private async cycle(): Promise<{ claimed: number; moreEvents: boolean }> {
    this.queue.drained = false;
    const moreEvents = await this.fanOut.run(this.isRunning);
    if (!this.running) return { claimed: 0, moreEvents: false };
    const wanted = this.slots.free + this.claimAhead - this.queue.length;
    if (wanted <= 0) return { claimed: 0, moreEvents };
    const claimed = await this.queue.claim(wanted);
    this.startReady();
    return { claimed, moreEvents };
  }

  /** The idle wait: until the next attempt of any process falls due, at most pollMs. */
  private async idleDelay(): Promise<number> {
    if (this.slots.inflight.size > 0 || this.queue.length > 0) return this.pollMs;
    const next = await nextDueAt(this.deps.db);
    return next ? Math.max(5, Math.min(this.pollMs, next.getTime() - Date.now())) : this.pollMs;
  }

  /** Fills the free slots from the claimed attempts; asks for a claim when they run low. */
  private startReady() {
    for (const row of this.queue.take(this.slots.free)) this.slots.start(row, this.recorded, this.freed);
    if (!this.queue.drained && this.queue.length < this.claimAhead / 2) this.alarm.poke();
  }

  private readonly recorded = (result: AttemptResult) => {
    if (result.status === 'pending' && result.nextAttemptAt) this.alarm.at(result.nextAttemptAt);
    this.onAttempt?.(result);
  };

  private readonly freed = () => {
    if (this.running) this.startReady();
  };
}

export function createDeliveryWorker(deps: DeliveryDeps, options: WorkerOptions = {}): DeliveryWorker {
  return new Dispatcher(deps, options);
}
