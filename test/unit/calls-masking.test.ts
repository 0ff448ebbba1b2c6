import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPhoneNumber, isSipUri, maskDestination } from '../../functions/calls/masking';

describe('escalation destination masking', () => {
  it.each([
    ['+14155550123', '*******0123'],
    ['+1 (415) 555-0123', '*******0123'],
    ['415.555.0123', '******0123'],
    ['tel:+442071838750', '********8750'],
    ['+49 30 901820', '******1820'],
    ['0123', '****'],
    ['12345', '*2345'],
  ])('phone %s -> %s', (input, masked) => {
    expect(maskDestination(input)).toBe(masked);
  });

  it.each([
    'sip:agent@pbx.example.com',
    'SIP:+14155550123@carrier.example',
    'sips:support@10.0.0.5:5061;transport=tls',
    'sip:1234@trunk',
  ])('SIP URI %s -> sip:[REDACTED]', (input) => {
    expect(maskDestination(input)).toBe('sip:[REDACTED]');
  });

  it('anything else is fully redacted', () => {
    expect(maskDestination('agent-queue-7')).toBe('[REDACTED]');
    expect(isPhoneNumber('12')).toBe(false);
    expect(isPhoneNumber('+1 415 555 0123 ext')).toBe(false);
    expect(isSipUri('https://x')).toBe(false);
  });

  it('property: a masked phone shows at most its last 4 digits, never more', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\+?[0-9]{5,15}$/), (phone) => {
        const masked = maskDestination(phone);
        const digits = phone.replace(/\D/g, '');
        expect(masked).toBe('*'.repeat(digits.length - 4) + digits.slice(-4));
        expect(masked.replace(/\*/g, '')).toHaveLength(4);
      }),
    );
  });
});
