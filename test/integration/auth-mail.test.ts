/** The HTTP mail-API adapter against a local fake mail API: what it sends, and a refusal. */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpMailer } from '../../shared/mail/mailer';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

interface Received {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

describe.skipIf(postgresUnavailable())('HTTP mail API adapter (MAIL_API_URL)', () => {
  let server: Server;
  let url: string;
  const received: Received[] = [];
  let answer = 202;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(text) });
        res.writeHead(answer, { 'Content-Type': 'application/json' }).end('{"id": "m_1"}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/emails`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('POSTs {from, to, subject, text} with the bearer key; a non-2xx answer is an error', async () => {
    const mailer = new HttpMailer({ url, apiKey: 'mail-key', from: 'Support <no-reply@acme.example>' });
    await mailer.send({ to: 'a@acme.example', subject: 'Hi', text: 'Body http://x/y', link: 'http://x/y' });
    expect(received.at(-1)).toMatchObject({
      headers: { authorization: 'Bearer mail-key', 'content-type': 'application/json' },
      body: {
        from: 'Support <no-reply@acme.example>',
        to: 'a@acme.example',
        subject: 'Hi',
        text: 'Body http://x/y',
      },
    });
    answer = 500;
    await expect(mailer.send({ to: 'b@acme.example', subject: 'x', text: 'y', link: 'z' })).rejects.toThrow(
      'mail API answered 500',
    );
    answer = 202;
  });

  describe('wired by env: an invite goes out through it', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        MAIL_API_URL: url,
        MAIL_API_KEY: 'k2',
        MAIL_FROM: 'Acme <hello@acme.example>',
      });
    }, 120_000);
    afterAll(() => h?.close());

    it('POST /tenants with admin_email mails the invite link through the API', async () => {
      const created = await h.request('POST', '/api/v1/tenants', {
        bearer: await h.superToken(),
        body: { name: 'Gamma', plan: 'free', environment: 'production', admin_email: 'g@gamma.example' },
      });
      expect(created.status).toBe(201);
      await h.runtime.drain();
      const mail = received.find((r) => r.body.to === 'g@gamma.example');
      expect(mail?.headers.authorization).toBe('Bearer k2');
      expect(mail?.body.from).toBe('Acme <hello@acme.example>');
      expect(created.body.invite.accept_url).toBeUndefined();
      expect(String(mail?.body.text)).toMatch(/\/console\/accept-invite\?token=itsm_inv_\w+/);
    });
  });
});
