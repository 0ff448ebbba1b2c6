import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../clients/typescript/webhooks';
import { buildSignedRequest } from '../../shared/webhooks/signing';

// the reference signer: node:crypto, independent of the product's Web Crypto code
const reference = (secret: string, ts: string, body: string) =>
  createHmac('sha256', secret).update(`${ts}.${body}`, 'utf8').digest('hex');

describe('delivery signing and the receiver helper', () => {
  const secret = 'whsec_test_secret_0123456789';

  it('signs lowercase hex HMAC-SHA256 over timestamp + "." + raw body, with the spec headers', async () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    const signed = await buildSignedRequest({
      secret,
      deliveryId: 'dlv_1',
      eventType: 'ticket.created',
      eventTimestamp: '2026-11-21T09:59:59.000Z',
      data: { ticket: { id: 'tkt_1', subject: 'Ünïcödé ✓', status: 'open', priority: 'high' } },
      now,
    });
    expect(JSON.parse(signed.body)).toEqual({
      event_type: 'ticket.created',
      timestamp: '2026-11-21T09:59:59.000Z',
      data: { ticket: { id: 'tkt_1', subject: 'Ünïcödé ✓', status: 'open', priority: 'high' } },
    });
    expect(signed.headers['X-Webhook-Event']).toBe('ticket.created');
    expect(signed.headers['X-Webhook-Timestamp']).toBe('2026-11-21T10:00:00.000Z');
    expect(signed.headers['X-Webhook-Delivery-Id']).toBe('dlv_1');
    expect(signed.headers['X-Webhook-Signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.headers['X-Webhook-Signature']).toBe(
      reference(secret, '2026-11-21T10:00:00.000Z', signed.body),
    );
  });

  it('verifies a genuine delivery from headers (any case) and refuses tampering', async () => {
    const ts = new Date().toISOString();
    const body = '{"event_type":"call.started","timestamp":"x","data":{"call":{"id":"c1"}}}';
    const sig = reference(secret, ts, body);
    expect(
      await verifyWebhookSignature({
        payload: body,
        headers: { 'x-webhook-timestamp': ts, 'X-Webhook-Signature': sig },
        secret,
      }),
    ).toBe(true);
    const h = new Headers({ 'X-Webhook-Timestamp': ts, 'X-Webhook-Signature': sig });
    expect(
      await verifyWebhookSignature({ payload: new TextEncoder().encode(body), headers: h, secret }),
    ).toBe(true);
    expect(await verifyWebhookSignature({ payload: `${body} `, headers: h, secret })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, headers: h, secret: `${secret}x` })).toBe(false);
    expect(
      await verifyWebhookSignature({ payload: body, timestamp: ts, signature: `sha256=${sig}`, secret }),
    ).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, timestamp: `${ts}0`, signature: sig, secret })).toBe(
      false,
    );
    expect(await verifyWebhookSignature({ payload: body, headers: {}, secret })).toBe(false);
  });

  it('applies the optional timestamp tolerance', async () => {
    const ts = '2026-11-21T10:00:00.000Z';
    const body = '{}';
    const sig = reference(secret, ts, body);
    const base = { payload: body, timestamp: ts, signature: sig, secret, toleranceSeconds: 300 };
    expect(await verifyWebhookSignature({ ...base, now: new Date('2026-11-21T10:04:59Z') })).toBe(true);
    expect(await verifyWebhookSignature({ ...base, now: new Date('2026-11-21T10:05:01Z') })).toBe(false);
    expect(await verifyWebhookSignature({ ...base, now: new Date('2026-11-21T09:54:59Z') })).toBe(false);
    expect(
      await verifyWebhookSignature({ ...base, toleranceSeconds: undefined, now: new Date('2030-01-01') }),
    ).toBe(true);
  });
});
