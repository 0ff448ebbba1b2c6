import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { StoredResponse } from '../context/idempotency-store';
import type { Executor } from '../db/schema';
import { answerWithWork, sendAnswer } from '../http/answer-with-work';
import { notFound } from '../http/errors';
import type { AuditAction, AuditTargetType } from './actions';
import { recordAudit } from './audit';

/** The audit entry of a dashboard write: what was done to which record, and what it records. */
export interface AuditEntry {
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  metadata: Record<string, unknown>;
}

export const audit = (
  action: AuditAction,
  target: AuditEntry['target'],
  metadata: Record<string, unknown> = {},
): AuditEntry => ({ action, target, metadata });

/**
 * Runs a dashboard resource's write in one transaction with its audit entry (the entry commits with
 * the write or not at all) and answers it through answerWithWork, so under an Idempotency-Key the
 * answer commits with them too. `work` answers the result and the entry, or no entry when nothing
 * changed (a PATCH that changes nothing records nothing).
 */
export async function auditedWrite<T>(
  c: Context<AppEnv>,
  work: (trx: Executor) => Promise<[T, AuditEntry | null]>,
  answerOf: (result: T) => StoredResponse,
): Promise<Response> {
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const [result, entry] = await work(trx);
      if (entry) await recordAudit(trx, c, entry.action, entry.target, entry.metadata);
      return result;
    },
    answerOf,
    { transaction: true },
  );
  return sendAnswer(c, answer);
}

/** The row, or the 404 `<noun> not found`. */
export function found<T>(row: T | undefined, noun: string): T {
  if (!row) throw notFound(noun);
  return row;
}
