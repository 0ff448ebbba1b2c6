import { sql } from 'kysely';
import type { Executor } from '../db/schema';

/** How often a sweep runs: the embedded worker's loop, and each edge isolate's cycles. */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Attempts whose content one sweep statement clears: a backlog is cleared in short statements. */
const SWEEP_BATCH = 1000;

/**
 * Clears what attempts older than `days` sent and got back (request and response), keeping each
 * attempt's row: the delivery's timeline outlives its content. Runs statement after statement until
 * none is left, or `keepGoing()` says stop; returns how many attempts were cleared.
 */
export async function clearExpiredAttemptContent(
  db: Executor,
  days: number,
  keepGoing: () => boolean = () => true,
): Promise<number> {
  let cleared = 0;
  for (;;) {
    const result = await sql`
      UPDATE webhook_delivery_attempts AS a
      SET request_headers = NULL, request_body = NULL, response_headers = NULL, response_body = NULL,
          response_body_truncated = NULL
      FROM (SELECT delivery_id, attempt FROM webhook_delivery_attempts
            WHERE (request_headers IS NOT NULL OR response_headers IS NOT NULL)
              AND attempted_at < now() - ${`${days} days`}::interval
            ORDER BY attempted_at
            LIMIT ${SWEEP_BATCH}) AS old
      WHERE a.delivery_id = old.delivery_id AND a.attempt = old.attempt`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    cleared += n;
    if (n < SWEEP_BATCH || !keepGoing()) return cleared;
  }
}
