import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../shared/env';
import { createMailer, HttpMailer, type OutboxMailer } from '../../shared/mail/mailer';

const mail = {
  to: 'a@acme.example',
  subject: 'Reset',
  text: 'go to http://x/reset?token=t0k',
  link: 'http://x/reset?token=t0k',
};
const SECRETS = {
  DASHBOARD_JWT_SECRET: 's',
  END_USER_JWT_SECRET: 's',
  INTERNAL_API_TOKEN: 's',
  API_KEY_HASH_SECRET: 's',
  WEBHOOK_ENCRYPTION_KEY: 's',
  VOICE_WIDGET_SECRET: 's',
};

describe('createMailer', () => {
  afterEach(() => vi.restoreAllMocks());

  it('development prints one line with the link and keeps the mail', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const mailer = createMailer(loadConfig({ APP_ENV: 'development' }));
    await mailer.send(mail);
    expect(log).toHaveBeenCalledWith('[mail] to a@acme.example: Reset -> http://x/reset?token=t0k');
    expect((mailer as OutboxMailer).sent).toEqual([mail]);
  });

  it('test keeps it silently; production without MAIL_API_URL drops it and never logs the link', async () => {
    const spies = (['log', 'warn', 'error', 'info'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    const quiet = createMailer(loadConfig({ APP_ENV: 'test' }));
    await quiet.send(mail);
    expect((quiet as OutboxMailer).sent).toHaveLength(1);

    const prod = createMailer(loadConfig({ APP_ENV: 'production', ...SECRETS }));
    await prod.send(mail);
    expect((prod as OutboxMailer).sent).toHaveLength(0);
    const printed = spies.flatMap((s) => s.mock.calls.flat().map(String)).join('\n');
    expect(printed).toContain('MAIL_API_URL unset');
    expect(printed).not.toContain('t0k');
  });

  it('MAIL_API_URL selects the HTTP adapter', () => {
    const mailer = createMailer(
      loadConfig({ APP_ENV: 'production', ...SECRETS, MAIL_API_URL: 'https://mail.example/emails' }),
    );
    expect(mailer).toBeInstanceOf(HttpMailer);
  });
});
