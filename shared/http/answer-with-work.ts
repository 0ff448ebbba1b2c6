import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Executor } from '../db/schema';
import { commitAnswer, type StoredResponse } from './idempotency';

/**
 * Runs a keyed route's work so that, under an Idempotency-Key, its answer commits with it (a retry
 * after a crash between the two then replays the answer instead of doing the work again): in a
 * transaction that also writes the answer under the request's lease. Without a key the work runs
 * on the database as it is, with no transaction to open: a one-statement write stays one round
 * trip (on the edge a transaction costs a connection of its own). Side effects outside the
 * database (mail, kicks) belong after this returns, once the work has committed.
 */
export async function answerWithWork<T>(
  c: Context<AppEnv>,
  work: (db: Executor) => Promise<T>,
  answerOf: (result: T) => StoredResponse,
): Promise<{ result: T; answer: StoredResponse }> {
  const { db } = c.get('services');
  const claim = c.get('idempotency');
  if (!claim) {
    const result = await work(db);
    return { result, answer: answerOf(result) };
  }
  return db.transaction().execute(async (trx) => {
    const result = await work(trx);
    const answer = answerOf(result);
    await commitAnswer(trx, c, answer);
    return { result, answer };
  });
}
