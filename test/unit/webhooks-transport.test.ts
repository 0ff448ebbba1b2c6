import { describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../shared/crypto';
import { answerHeaders, nodeSigner } from '../../shared/webhooks/transport.node';

describe('the Node transport', () => {
  it("keeps a receiver's answer headers by lower-cased name, repeated ones joined, none lost to the prototype", () => {
    const headers = answerHeaders([
      'Content-Type',
      'text/plain',
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
      '__proto__',
      'odd',
      'Constructor',
      'also odd',
    ]);
    expect(Object.entries(headers)).toEqual([
      ['content-type', 'text/plain'],
      ['set-cookie', 'a=1, b=2'],
      ['__proto__', 'odd'],
      ['constructor', 'also odd'],
    ]);
    // stored as jsonb: every header survives the round trip
    expect(Object.entries(JSON.parse(JSON.stringify(headers)))).toHaveLength(4);
  });

  it('signs with a cached key exactly as WebCrypto does, secret after secret', async () => {
    for (const secret of ['whsec_one', 'whsec_two', 'whsec_one']) {
      const message = `2026-11-27T00:00:00.000Z.{"n":"${secret}"}`;
      expect(nodeSigner(secret, message)).toBe(await hmacSha256Hex(secret, message));
    }
  });
});
