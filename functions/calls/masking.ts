/**
 * Destination masking for `call.escalated` (spec value sets: "phone number shows only its last
 * 4 digits, the rest masked; SIP URI appears as `sip:[REDACTED]`"). Pure, unit-tested.
 */
const SIP = /^sips?:/i;

export const isSipUri = (destination: string) => SIP.test(destination.trim());

/** Phone-shaped: optional `tel:`, optional `+`, digits with common separators, 4..20 digits. */
export function isPhoneNumber(destination: string): boolean {
  const v = destination.trim().replace(/^tel:/i, '');
  if (!/^\+?[\d\s().\-/]+$/.test(v)) return false;
  const digits = v.replace(/\D/g, '').length;
  return digits >= 4 && digits <= 20;
}

/**
 * `sip:agent@pbx.example.com` -> `sip:[REDACTED]`; `+1 (415) 555-0123` -> `*******0123`: every
 * digit but the last four becomes `*`, separators and the `+`/`tel:` prefix are dropped so the
 * number's format reveals nothing either. Anything else is fully redacted.
 */
export function maskDestination(destination: string): string {
  if (isSipUri(destination)) return 'sip:[REDACTED]';
  if (!isPhoneNumber(destination)) return '[REDACTED]';
  const digits = destination.replace(/^tel:/i, '').replace(/\D/g, '');
  const keep = digits.length > 4 ? 4 : 0;
  return '*'.repeat(digits.length - keep) + digits.slice(digits.length - keep);
}
