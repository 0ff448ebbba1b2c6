/**
 * Stored Idempotency-Key answers are sealed: every one, in both stores (the `idempotency_keys` row
 * and the Redis `idem:*` value), since many carry a secret shown once (a webhook's `whsec_` secret,
 * an API key, a voice-widget token, an invite in development) and a store that kept them readable
 * for 24 h would be a copy of every such secret at rest. AES-GCM as webhook secrets are
 * (shared/crypto.ts), under a key of its own derived from WEBHOOK_ENCRYPTION_KEY; the body is
 * sealed whole and opened back to the same bytes, so a replay is the first answer byte for byte.
 * Sealing every body rather than choosing which carry a secret: no route can forget to ask.
 */
import type { IdempotencyClaim, StoredResponse } from '../context/idempotency-store';
import { decryptSecret, encryptSecret } from '../crypto';
import type { AppConfig } from '../env';

/** What begins a sealed body; anything else is a record written before answers were sealed. */
const SEALED = 'sealed-answer:';

/** The claim's sealing key: WEBHOOK_ENCRYPTION_KEY with a tag of its own, so it seals nothing else. */
export const answerSealKey = (config: Pick<AppConfig, 'WEBHOOK_ENCRYPTION_KEY'>) =>
  `idempotency-answer:${config.WEBHOOK_ENCRYPTION_KEY}`;

/** An answer whose body is sealed, as the stores keep it (a type of its own: no plain body slips in). */
export type SealedResponse = StoredResponse & { readonly sealed: true };

export async function sealAnswer(claim: IdempotencyClaim, answer: StoredResponse): Promise<SealedResponse> {
  const body = `${SEALED}${await encryptSecret(claim.sealKey, answer.body)}`;
  return { status: answer.status, headers: answer.headers, body, sealed: true };
}

/** The body as first sent, from its stored form (a record from before sealing is read as it is). */
export async function openBody(claim: IdempotencyClaim, stored: string): Promise<string> {
  if (!stored.startsWith(SEALED)) return stored;
  return decryptSecret(claim.sealKey, stored.slice(SEALED.length));
}
