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

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return b64(new Uint8Array(bits));
}

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
