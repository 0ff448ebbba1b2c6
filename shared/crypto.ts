/**
 * Small crypto helpers on Web Crypto, so the same code runs in Workers and Node.
 */
const encoder = new TextEncoder();

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a pool refilled 4 KiB at a time: one getRandomValues call per ~200 ids
 * instead of one per id (one call per id would be the costliest step of metering a request). Bytes are handed out
 * once and never reused.
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;
function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** Uniform random base62 string from the CSPRNG (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const b of view) out += b.toString(16).padStart(2, '0');
  return out;
}

/**
 * An HMAC-SHA256 secret as a CryptoKey, imported once per secret and process (or isolate): signing
 * here and verifying HS256 tokens (shared/auth/jwt.ts) would otherwise import it on every call.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
export function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    hmacKeys.set(secret, key);
  }
  return key;
}

/** Lowercase hex HMAC-SHA256. `message` may be text or raw bytes. */
export async function hmacSha256Hex(secret: string, message: string | Uint8Array): Promise<string> {
  const data = typeof message === 'string' ? encoder.encode(message) : message;
  return toHex(await crypto.subtle.sign('HMAC', await hmacKey(secret), data as BufferSource));
}

export async function sha256Hex(message: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(message)));
}

/** Constant-time string comparison (length is not secret). */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  let diff = ab.length ^ bb.length;
  const n = Math.max(ab.length, bb.length);
  for (let i = 0; i < n; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  const bytes = encoder.encode(text);
  // an index loop: the iterator a for-of builds costs more than the table look-ups, on every keyed request
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Fixed-width base62 of a 32-bit number (6 digits cover 2^32). */
export function base62Fixed(value: number, width = 6): string {
  let v = value;
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

/** AES-GCM with a key derived (SHA-256) from any configured string; output `v1.<iv>.<ciphertext>` base64url. */
const aesKeys = new Map<string, Promise<CryptoKey>>();
function aesKey(secret: string): Promise<CryptoKey> {
  let key = aesKeys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', encoder.encode(secret))
      .then((raw) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']));
    aesKeys.set(secret, key);
  }
  return key;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const fromB64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0));

export async function encryptSecret(secret: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await aesKey(secret),
    encoder.encode(plaintext),
  );
  return `v1.${b64url(iv)}.${b64url(new Uint8Array(sealed))}`;
}

export async function decryptSecret(secret: string, sealed: string): Promise<string> {
  const [version, iv, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !data) throw new Error('unsupported sealed secret');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromB64url(iv) },
    await aesKey(secret),
    fromB64url(data),
  );
  return new TextDecoder().decode(plain);
}
