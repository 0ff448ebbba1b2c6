/**
 * Password hashing of end users (functions/end-user) and dashboard users (functions/auth), in
 * shared/ so neither function imports the other. On Web Crypto (runs on Workers and Node): PBKDF2-SHA256, a random 16-byte salt
 * per user, 100 000 iterations (the most Workers' PBKDF2 accepts). Stored as
 * `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`.
 */
import { timingSafeEqual } from '../crypto';

const ITERATIONS = 100_000;
const encoder = new TextEncoder();
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

/**
 * How many PBKDF2 derivations this process ran: the costly step of a sign-in, counted so a test can
 * see that every address costs the same number of them (time alone is noisy on a busy machine).
 */
export const passwordDerivations = { count: 0 };

async function deriveBits(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  passwordDerivations.count++;
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}
const derive = async (password: string, salt: Uint8Array, iterations: number) =>
  b64(await deriveBits(password, salt, iterations));

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `pbkdf2-sha256$${ITERATIONS}$${b64(salt)}$${await derive(password, salt, ITERATIONS)}`;
}

/** A hash to verify against when the user does not exist, so both failures cost the same. */
const DUMMY = `pbkdf2-sha256$${ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, iter, salt, hash] = (stored ?? DUMMY).split('$');
  if (scheme !== 'pbkdf2-sha256' || !iter || !salt || !hash) return false;
  const derived = await derive(password, unb64(salt), Number(iter));
  return stored !== null && timingSafeEqual(derived, hash);
}

/*
 * Dashboard accounts: one derivation per sign-in, whatever the number of accounts of the address.
 * An address may hold accounts in several tenants, each with its own password, and a sign-in
 * without tenant_id checks the password against each of them; with a salt per account that was
 * one PBKDF2 derivation per account, so the time of a failure told in how many tenants an address
 * works. Here the costly step is per address: PBKDF2 of the password with a salt derived from the
 * lower-cased address, then per account a cheap HMAC of that key with the account's own random
 * salt, `pbkdf2-sha256-address$<iterations>$<salt b64>$<hmac b64>`. An unknown address costs the
 * same one derivation. Hashes of the older per-account form still verify (one derivation each) and
 * are rewritten in this form at their next sign-in (functions/auth).
 */
const ACCOUNT_SCHEME = 'pbkdf2-sha256-address';
const ACCOUNT_SALT_TAG = 'dashboard-sign-in-salt:';

async function addressKey(email: string, password: string, iterations: number): Promise<CryptoKey> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    encoder.encode(ACCOUNT_SALT_TAG + email.toLowerCase()),
  );
  const bits = await deriveBits(password, new Uint8Array(digest).slice(0, 16), iterations);
  return crypto.subtle.importKey('raw', bits as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
}
const accountMac = async (key: CryptoKey, salt: Uint8Array) =>
  b64(new Uint8Array(await crypto.subtle.sign('HMAC', key, salt as BufferSource)));

/** The stored form of a dashboard account's password (the account's address is part of it). */
export async function hashAccountPassword(email: string, password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const mac = await accountMac(await addressKey(email, password, ITERATIONS), salt);
  return `${ACCOUNT_SCHEME}$${ITERATIONS}$${b64(salt)}$${mac}`;
}

/** Whether a stored account hash is of the older per-account form (rewritten at its next sign-in). */
export const isLegacyAccountHash = (stored: string) => !stored.startsWith(`${ACCOUNT_SCHEME}$`);

/**
 * Which of the address's stored hashes `password` matches, in their order: one derivation for the
 * address (also with no hash at all), an HMAC per account; a legacy hash costs its own derivation.
 */
export async function verifyAccountPasswords(
  email: string,
  password: string,
  stored: readonly (string | null)[],
): Promise<boolean[]> {
  const key = await addressKey(email, password, ITERATIONS);
  return Promise.all(
    stored.map(async (hash) => {
      if (hash === null) return false;
      if (isLegacyAccountHash(hash)) return verifyPassword(password, hash);
      const [, iter, salt, mac] = hash.split('$');
      if (!iter || !salt || !mac) return false;
      const own = Number(iter) === ITERATIONS ? key : await addressKey(email, password, Number(iter));
      return timingSafeEqual(await accountMac(own, unb64(salt)), mac);
    }),
  );
}
