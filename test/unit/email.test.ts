import { describe, expect, it } from 'vitest';
import { withinSmtpLimits } from '../../shared/http/email';

describe('email addresses within SMTP limits (shared/http/email.ts)', () => {
  it('takes local parts up to 64 and labels up to 63 characters', () => {
    expect(withinSmtpLimits(`${'a'.repeat(64)}@${'b'.repeat(63)}.example`)).toBe(true);
    expect(withinSmtpLimits('ops@support.example.com')).toBe(true);
  });
  it('refuses a longer local part or label', () => {
    expect(withinSmtpLimits(`${'a'.repeat(65)}@example.com`)).toBe(false);
    expect(withinSmtpLimits(`a@${'b'.repeat(64)}.example`)).toBe(false);
    expect(withinSmtpLimits('@example.com')).toBe(false);
  });
  it('refuses a domain label ending in a hyphen (no host has one), takes one inside a label', () => {
    expect(withinSmtpLimits('ana@mail-.example.com')).toBe(false);
    expect(withinSmtpLimits('ana@mail-relay.example.com')).toBe(true);
  });
});
