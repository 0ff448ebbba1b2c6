/**
 * What SMTP sets on an address (RFC 5321) that a syntax check leaves out: a local part of at most 64
 * octets, and domain labels of at most 63 that do not end in a hyphen (a host name's label, RFC 1123;
 * zod's email check lets `a@b-.example` through, the document's `format: email` does not). An address
 * past them can be stored but never delivered to, so every email field refuses it where it enters,
 * with the other validation errors.
 */
export function withinSmtpLimits(address: string): boolean {
  const at = address.lastIndexOf('@');
  if (at < 1 || at > 64) return false;
  return address
    .slice(at + 1)
    .split('.')
    .every((label) => label.length <= 63 && !label.endsWith('-'));
}

export const SMTP_LIMITS_MESSAGE =
  'Invalid email address: the local part is over 64 characters, or a domain label over 63 or ending in a hyphen';

/** `.refine` arguments for an email schema: `z.email().refine(...smtpLimits)`. */
export const smtpLimits = [withinSmtpLimits, SMTP_LIMITS_MESSAGE] as const;
