/**
 * Outbound mail (invites, password resets): one port, two adapters.
 * - HTTP mail API (production): `POST MAIL_API_URL` with `Authorization: Bearer MAIL_API_KEY` and
 *   `{from, to, subject, text}` (the shape of Resend's and Postmark-style "send one email" APIs).
 * - Outbox (development and tests): kept in memory (`sent`, read by the test harness) and, in
 *   development, printed as one readable line with the link. In staging/production without
 *   MAIL_API_URL nothing is printed (a link is a credential) and the mail is dropped with a warning.
 * Edge-compatible: fetch only.
 */
import type { AppConfig } from '../env';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** the one action link the mail carries (printed in development) */
  link: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** The outbox keeps the latest mails only: `npm start` may run for days. */
const OUTBOX_KEEPS = 1000;

export class OutboxMailer implements Mailer {
  readonly sent: Mail[] = [];
  constructor(private readonly mode: 'print' | 'silent' | 'drop') {}

  async send(mail: Mail): Promise<void> {
    if (this.mode === 'drop') {
      console.warn(JSON.stringify({ level: 'warn', msg: 'mail not sent: MAIL_API_URL unset', to: mail.to }));
      return;
    }
    this.sent.push(mail);
    if (this.sent.length > OUTBOX_KEEPS) this.sent.shift();
    if (this.mode === 'print') console.log(`[mail] to ${mail.to}: ${mail.subject} -> ${mail.link}`);
  }
}

export interface HttpMailerOptions {
  url: string;
  apiKey?: string;
  from: string;
  timeoutMs?: number;
}

export class HttpMailer implements Mailer {
  constructor(private readonly options: HttpMailerOptions) {}

  async send(mail: Mail): Promise<void> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    const res = await fetch(this.options.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ from: this.options.from, to: mail.to, subject: mail.subject, text: mail.text }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    // the body may echo the message (and its link): report the status only
    if (!res.ok) throw new Error(`mail API answered ${res.status}`);
  }
}

/** The mailer a runtime uses for `config`: the HTTP API when MAIL_API_URL is set, else the outbox. */
export function createMailer(config: AppConfig): Mailer {
  if (config.MAIL_API_URL)
    return new HttpMailer({ url: config.MAIL_API_URL, apiKey: config.MAIL_API_KEY, from: config.MAIL_FROM });
  const mode = { development: 'print', test: 'silent', staging: 'drop', production: 'drop' } as const;
  return new OutboxMailer(mode[config.APP_ENV]);
}
