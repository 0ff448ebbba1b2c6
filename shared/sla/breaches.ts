// The scheduled breach check: records each SLA breach when it falls due, whether or not anything
// touches the record. The database is the schedule (`sla_check_at`, the earliest due time not yet
// met nor breached); a row is claimed by locking it (FOR UPDATE SKIP LOCKED) and its breach
// written in the same transaction, so any number of processes (the Node loop below, QStash
// callbacks on Workers) record each breach once. A breach recorded late (after an outage) is
// stamped with the time it fell due: its ticket.updated event carries that time as its own.
import type { Executor } from '../db/schema';
import { outboxRow } from '../events/emit';
import type { Logger } from '../log/logger';
import { ticketView } from '../tickets/tickets';
import { isResolved } from './records';
import { breachesAt, type SlaState, withTimes } from './state';

export type SlaTable = 'tickets' | 'conversations';
export const SLA_TABLES: readonly SlaTable[] = ['tickets', 'conversations'];

/** Rows one transaction claims at most: a backlog after an outage drains in batches. */
const BATCH = 100;

export interface BreachRecorded {
  table: SlaTable;
  id: string;
  tenant_id: string;
  first_response: boolean;
  resolution: boolean;
  due_at: Date;
}

interface Locked extends SlaState {
  id: string;
  tenant_id: string;
  status: string;
}

/**
 * Records the breaches due at `now` among rows of `table` (all of them, or the one `only` names):
 * the flags set once, `sla_check_at` moved on, and for a ticket a `ticket.updated` event carrying
 * `sla`, dated when the breach fell due. Returns what it recorded; rows another process holds are
 * skipped (it records them).
 */
export async function recordDueBreaches(
  db: Executor,
  table: SlaTable,
  now: Date,
  only?: { tenantId: string; id: string },
): Promise<BreachRecorded[]> {
  const run = async (trx: Executor) => {
    let q = trx
      .selectFrom(table as 'tickets')
      .selectAll()
      .where('sla_check_at', '<=', now);
    if (only) q = q.where('tenant_id', '=', only.tenantId).where('id', '=', only.id);
    const rows = (await q
      .orderBy('sla_check_at')
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .execute()) as Locked[];
    const recorded: BreachRecorded[] = [];
    for (const row of rows) {
      const resolved = isResolved(row.status);
      const b = breachesAt(row, now, resolved);
      // nothing due after all (a stale check time): move the check on, record nothing
      const next = b ? b.next : withTimes(row, resolved);
      const updated = await trx
        .updateTable(table as 'tickets')
        .set({
          sla_first_response_breached: next.sla_first_response_breached,
          sla_resolution_breached: next.sla_resolution_breached,
          sla_breached: next.sla_breached,
          sla_due_at: next.sla_due_at,
          sla_check_at: next.sla_check_at,
        })
        .where('tenant_id', '=', row.tenant_id)
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (!b) continue;
      if (table === 'tickets') {
        const changes: Record<string, { from: unknown; to: unknown }> = {};
        if (b.firstResponse) changes['sla.first_response_breached'] = { from: false, to: true };
        if (b.resolution) changes['sla.resolution_breached'] = { from: false, to: true };
        const event = outboxRow(row.tenant_id, 'ticket.updated', { ticket: ticketView(updated), changes });
        await trx
          .insertInto('events')
          .values({ ...event, created_at: b.dueAt })
          .execute();
      }
      recorded.push({
        table,
        id: row.id,
        tenant_id: row.tenant_id,
        first_response: b.firstResponse,
        resolution: b.resolution,
        due_at: b.dueAt,
      });
    }
    return recorded;
  };
  return 'isTransaction' in db && db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** The next check time of any row (the loop sleeps until then, at most its poll interval). */
export async function nextCheckAt(db: Executor): Promise<Date | null> {
  let next: Date | null = null;
  for (const table of SLA_TABLES) {
    const row = await db
      .selectFrom(table as 'tickets')
      .select('sla_check_at')
      .where('sla_check_at', 'is not', null)
      .orderBy('sla_check_at')
      .limit(1)
      .executeTakeFirst();
    if (row?.sla_check_at && (!next || row.sla_check_at < next)) next = row.sla_check_at;
  }
  return next;
}

/** Every breach due at `now` in both tables, batch after batch (the Node loop's pass, a Worker's callback). */
export async function recordAllDueBreaches(db: Executor, now: Date): Promise<BreachRecorded[]> {
  const all: BreachRecorded[] = [];
  for (const table of SLA_TABLES) {
    for (;;) {
      const batch = await recordDueBreaches(db, table, now);
      all.push(...batch);
      if (batch.length < BATCH) break;
    }
  }
  return all;
}

export interface BreachChecker {
  start(): void;
  stop(): Promise<void>;
  /** one pass over every due row now (tests, and the loop itself) */
  runOnce(now?: Date): Promise<BreachRecorded[]>;
}

export interface BreachCheckerDeps {
  db: Executor;
  logger: Logger;
  /** wakes the event dispatcher after a breach event commits */
  kick: () => void;
  /** longest sleep between passes (default 1 s) */
  pollMs?: number;
}

/**
 * The Node loop: a pass records every due breach (batch after batch), then it sleeps until the
 * next check time of any row, at most `pollMs` (so rows other processes write are seen), like the
 * webhook dispatcher's loop.
 */
export function createBreachChecker(deps: BreachCheckerDeps): BreachChecker {
  const pollMs = deps.pollMs ?? 1_000;
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  const runOnce = async (now = new Date()) => {
    const all = await recordAllDueBreaches(deps.db, now);
    if (all.some((b) => b.table === 'tickets')) deps.kick();
    return all;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = async () => {
    while (running) {
      let delay = pollMs;
      try {
        await runOnce();
        const next = await nextCheckAt(deps.db);
        if (next) delay = Math.max(5, Math.min(pollMs, next.getTime() - Date.now() + 1));
      } catch (err) {
        if (!running) break;
        deps.logger.warn({ error: String((err as Error)?.message ?? err) }, 'sla breach check failed');
      }
      if (running) await sleep(delay);
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = null;
    },
    runOnce,
  };
}
