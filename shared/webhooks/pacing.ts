import { sql } from 'kysely';
import type { Executor } from '../db/schema';

/**
 * The per-endpoint rate limit (`rate_limit`, deliveries a second). The pace lives on the
 * subscription row (`pace_next_at`: the earliest time the next attempt may start), so every process
 * and every Workers isolate draws from the same pace: the database is the one store they all
 * reach already, and the claim that precedes every attempt is already a statement there. A
 * claimed attempt takes a slot by moving `pace_next_at` on by 1/rate under the row's lock; an
 * attempt with no slot free is handed back unattempted, due at the slot it would get (no attempt
 * counted, no failure recorded, its attempt number and retry schedule untouched).
 *
 * Slots within GRANT_WINDOW_MS of now are given at once, so a fast endpoint (thousands a second)
 * gets many attempts per claim, and a slow one (rate 10) one per 100 ms.
 */
export const GRANT_WINDOW_MS = 20;

export interface PaceInput {
  id: string;
  webhook_id: string;
  claim_token: string | null;
}

export interface Paced<T> {
  go: T[];
  /** handed back unattempted: due again at `at` */
  later: { row: T; at: Date }[];
}

/**
 * Splits claimed attempts into those that may start now and those that must wait for their
 * endpoint's pace (given back in the same call). Rows of endpoints with no rate limit all go.
 */
export async function paceClaims<T extends PaceInput>(db: Executor, rows: readonly T[]): Promise<Paced<T>> {
  if (rows.length === 0) return { go: [], later: [] };
  const byHook = new Map<string, T[]>();
  for (const r of rows) byHook.set(r.webhook_id, [...(byHook.get(r.webhook_id) ?? []), r]);
  const hooks = [...byHook.keys()];
  const { rows: grants } = await sql<{ id: string; k: number; rate: number; next_at: Date }>`
    WITH want AS (
      SELECT * FROM unnest(${hooks}::text[], ${hooks.map((h) => byHook.get(h)!.length)}::int[]) AS v (id, n)
    ), cur AS (
      SELECT w.id, w.rate_limit AS rate, want.n, GREATEST(COALESCE(w.pace_next_at, now()), now()) AS start
      FROM webhooks AS w JOIN want ON want.id = w.id
      WHERE w.rate_limit IS NOT NULL
      FOR UPDATE OF w
    ), g AS (
      SELECT id, rate, start,
             LEAST(n, CASE WHEN start <= now() + ${`${GRANT_WINDOW_MS} milliseconds`}::interval
                      THEN floor(extract(epoch FROM now() + ${`${GRANT_WINDOW_MS} milliseconds`}::interval - start) * rate)::int + 1
                      ELSE 0 END) AS k
      FROM cur
    )
    UPDATE webhooks AS w SET pace_next_at = g.start + g.k * interval '1 second' / g.rate
    FROM g WHERE w.id = g.id
    RETURNING w.id, g.k, g.rate, w.pace_next_at AS next_at`.execute(db);
  const paced = new Map(grants.map((g) => [g.id, g]));
  const go: T[] = [];
  const later: Paced<T>['later'] = [];
  for (const [hook, claimed] of byHook) {
    const grant = paced.get(hook);
    if (!grant) {
      go.push(...claimed);
      continue;
    }
    const next = new Date(grant.next_at).getTime();
    claimed.forEach((row, i) => {
      if (i < grant.k) go.push(row);
      // a hint, not a reservation: due one slot apart from the pace on, so they come back in turn
      else later.push({ row, at: new Date(next + ((i - grant.k) * 1000) / grant.rate) });
    });
  }
  if (later.length > 0)
    await sql`
      UPDATE webhook_deliveries AS d SET next_attempt_at = v.at, claimed_until = NULL, claim_token = NULL
      FROM unnest(${later.map((l) => l.row.id)}::text[], ${later.map((l) => l.row.claim_token)}::text[],
                  ${later.map((l) => l.at)}::timestamptz[]) AS v (id, token, at)
      WHERE d.id = v.id AND d.claim_token = v.token AND d.status = 'pending'`.execute(db);
  return { go, later };
}
