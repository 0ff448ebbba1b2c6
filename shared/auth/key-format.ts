import { base62Fixed, crc32, hmacSha256Hex, randomBase62 } from '../crypto';

/**
 * API key format: `itsm_sk_{env}_{random}` where env is `test` (sandbox tenants) or `live`.
 * The random segment is 32 CSPRNG base62 characters followed by a 6-character base62 CRC32 of
 * everything before it (GitHub-token style), so a mistyped, altered or forged key is refused
 * without any lookup, and secret scanners can recognise the shape:
 *
 *   itsm_sk_live_<32 × [0-9A-Za-z]><6 × [0-9A-Za-z] checksum>
 */
export type KeyEnvironment = 'live' | 'test';

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_PREFIX_LENGTH = 12;
export const API_KEY_PATTERN = /^itsm_sk_(live|test)_([0-9A-Za-z]{38})$/;

const checksum = (body: string) => base62Fixed(crc32(body), CHECKSUM_LENGTH);

export interface GeneratedKey {
  apiKey: string;
  environment: KeyEnvironment;
  /** first 12 characters of the random segment: shown in listings, not a secret */
  keyPrefix: string;
}

export function generateApiKey(environment: KeyEnvironment): GeneratedKey {
  const body = `itsm_sk_${environment}_${randomBase62(RANDOM_LENGTH)}`;
  const apiKey = body + checksum(body);
  const random = apiKey.slice(`itsm_sk_${environment}_`.length);
  return { apiKey, environment, keyPrefix: random.slice(0, KEY_PREFIX_LENGTH) };
}

/** Shape and checksum only: no I/O. */
export function isWellFormedApiKey(candidate: string): boolean {
  const match = API_KEY_PATTERN.exec(candidate);
  if (!match) return false;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === candidate.slice(-CHECKSUM_LENGTH);
}

/** Keyed hash stored and looked up instead of the key. */
export const hashApiKey = (secret: string, apiKey: string) => hmacSha256Hex(secret, apiKey);
