import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type QueryCreator, type RawBuilder, sql } from 'kysely';
import type { AppEnv } from '../context/app-env';
import type { IdempotencyClaim, StoredResponse } from '../context/idempotency-store';
import type { Database, Db, Executor } from '../db/schema';
import { sealAnswer } from './answer-seal';
import { answerUnderLease, LeaseLost } from './idempotency';

/**
 * The one way a keyed write (POST or PATCH under an Idempotency-Key) answers: its work and its
 * answer commit together, the answer written under the request's lease. A process that dies after
 * that commit leaves the answer in the database, and a retry after the lease replays it instead of
 * doing the work again; one that dies before it leaves neither. Every route whose method the key
 * applies to answers through this, so no route can commit its work apart from its answer.
 *
 * Under a key the work runs in a transaction that also writes the answer; or, with
 * `options.inStatement`, a work that is one statement takes the answer into that statement
 * (`lease`, see StatementLease): one round trip, and a statement whose client died still commits
 * both. Without a key the work runs on the database as it is, with no transaction to open (a
 * one-statement write stays one round trip; on the edge a transaction costs a connection of its
 * own), unless `options.transaction` says the work needs one anyway. Side effects outside the
 * database (mail, kicks, cache evictions) belong after this returns, once the work has committed.
 */
export async function answerWithWork<T>(
  c: Context<AppEnv>,
  work: (db: Executor, lease?: StatementLease) => Promise<T>,
  answerOf: (result: T) => StoredResponse,
  options: { transaction?: boolean; inStatement?: boolean } = {},
): Promise<{ result: T; answer: StoredResponse }> {
  const { db } = c.get('services');
  const claim = c.get('idempotency');
  if (claim && !options.inStatement) return workUnderClaim(db, claim, work, answerOf);
  const lease = claim ? statementLease(claim) : undefined;
  const run = async (ex: Executor) => {
    const result = await work(ex, lease).catch((err) => {
      throw lease?.lost(err) ?? err;
    });
    return { result, answer: answerOf(result) };
  };
  return options.transaction ? db.transaction().execute(run) : run(db);
}

/**
 * What a one-statement work adds to its statement under a key: `cte(answer)` as its
 * `idempotency` CTE (the answer, sealed, under the lease: the bytes answerOf will give for the row
 * the statement writes), and one NOT NULL value taken through `guard(column, value)`, NULL when
 * the CTE wrote nothing: the statement then fails and writes nothing, a lease lost (409).
 */
export interface StatementLease {
  cte(answer: StoredResponse): Promise<(qc: QueryCreator<Database>) => ReturnType<typeof answerUnderLease>>;
  guard(column: string, value: string): RawBuilder<string>;
  /** the statement's error, as LeaseLost when it was the guard's */
  lost(err: unknown): unknown;
}

function statementLease(claim: IdempotencyClaim): StatementLease {
  let guarded: string | undefined;
  return {
    async cte(answer) {
      const sealed = await sealAnswer(claim, answer);
      return (qc) => answerUnderLease(qc, claim, sealed);
    },
    guard(column, value) {
      guarded = column;
      return sql<string>`(SELECT ${value}::text FROM idempotency)`;
    },
    lost(err) {
      const e = err as { code?: string; column?: string } | null;
      const nullGuard = e?.code === '23502' && (e.column === undefined || e.column === guarded);
      return guarded !== undefined && nullGuard ? new LeaseLost() : err;
    },
  };
}

/**
 * answerWithWork's keyed half, for a claim in hand: the work, then its sealed answer under the
 * claim's lease, in one transaction. A claim whose lease another request has taken over (or, with
 * a store apart from the database, whose key another holder answered first) gets LeaseLost (409),
 * which rolls the work back.
 */
export function workUnderClaim<T>(
  db: Db,
  claim: IdempotencyClaim,
  work: (db: Executor) => Promise<T>,
  answerOf: (result: T) => StoredResponse,
): Promise<{ result: T; answer: StoredResponse }> {
  return db.transaction().execute(async (trx) => {
    const result = await work(trx);
    const answer = answerOf(result);
    const written = await answerUnderLease(trx, claim, await sealAnswer(claim, answer)).executeTakeFirst();
    if (!written) throw new LeaseLost();
    return { result, answer };
  });
}

/** A JSON answer as answerWithWork commits it and the route sends it: the same bytes either way. */
export function storedJson(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): StoredResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

/** An answer with no body (204), as answerWithWork commits it. */
export const storedEmpty = (status = 204): StoredResponse => ({ status, headers: {}, body: '' });

/** The response of an answer committed with its work: the bytes a replay sends. */
export function sendAnswer(c: Context<AppEnv>, answer: StoredResponse): Response {
  if (answer.status === 204 || answer.status === 304) return c.body(null, answer.status, answer.headers);
  return c.body(answer.body, answer.status as ContentfulStatusCode, answer.headers);
}
