import { describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../shared/crypto';
import { buildSignedRequest } from '../../shared/webhooks/signing';
import { nodeSigner } from '../../shared/webhooks/transport.node.js';

// Node signs deliveries with createHmac (synchronous), Workers with WebCrypto: one signature either way.
describe('webhook signers', () => {
  const cases = [
    ['whsec_abc', '2026-03-14T09:26:54.020Z.{"event_type":"ticket.created"}'],
    ['whsec_ünïcødé', '2026-03-14T09:26:54.020Z.{"subject":"Drücker 🔥 بريد"}'],
    ['whsec_abc', ''],
  ] as const;

  it.each(cases)('node:crypto and WebCrypto agree (secret %j)', async (secret, message) => {
    expect(nodeSigner(secret, message)).toBe(await hmacSha256Hex(secret, message));
    expect(nodeSigner(secret, message)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a signed request carries the same signature whichever signer made it', async () => {
    const input = {
      secret: 'whsec_abc',
      deliveryId: 'dlv_1',
      eventType: 'ticket.created',
      eventTimestamp: '2026-03-14T09:26:53.412Z',
      data: { ticket: { id: 'tkt_1' } },
      now: new Date('2026-03-14T09:26:54.020Z'),
    };
    const web = await buildSignedRequest(input);
    const node = await buildSignedRequest({ ...input, sign: nodeSigner });
    expect(node).toEqual(web);
    expect(node.headers['X-Webhook-Signature']).toBe(
      nodeSigner('whsec_abc', `2026-03-14T09:26:54.020Z.${node.body}`),
    );
  });
});
