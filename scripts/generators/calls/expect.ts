// Shared by every call script, compiled with each generated client under `tsc --init --strict`
// (which includes no @types/node: the server and key come from env.ts, written by the check).
export { API_KEY, BASE_URL } from './env.js';

export function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`expected ${what}`);
}
