import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * A 422's messages are words a person understands (docs/input.md, "Validation messages"), never
 * zod's defaults. Each row sends one bad input to a real route and names where the issue is; the
 * message found there (and every other one of the answer) must match none of zod's phrases.
 */

/** zod's English defaults (zod/v4/locales/en.js), as they start. */
const ZOD_DEFAULTS: readonly RegExp[] = [
  /^Invalid input/,
  /expected .+, received /,
  /^Too (small|big): /,
  /^Invalid option: /,
  /^Unrecognized keys?: /,
  /^Invalid (string|number): must /,
  /^Invalid (key|value) in /,
  /^Invalid discriminator value/,
  /^Invalid (ISO (datetime|date|time|duration)|URL|UUID|email address|emoji|base64|hex|IPv[46] address)$/,
];

type Credential = 'admin' | 'super';
interface Case {
  what: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'GET';
  path: string;
  body?: unknown;
  as?: Credential;
  /** where the issue is reported */
  loc: (string | number)[];
  /** its message, where the row pins the wording */
  msg?: string;
}

const TICKET = { subject: 'Printer on fire' };
const CARD = { card_number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2099 };

const CASES: readonly Case[] = [
  // wrong types
  {
    what: 'a number for a string',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { subject: 42 },
    loc: ['body', 'subject'],
    msg: 'Input should be a valid string',
  },
  {
    what: 'a string for a list',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, tags: 'vip' },
    loc: ['body', 'tags'],
    msg: 'Input should be a valid list',
  },
  {
    what: 'a list for the body',
    method: 'POST',
    path: '/api/v1/tickets',
    body: [TICKET],
    loc: ['body'],
    msg: 'Input should be a valid object',
  },
  {
    what: 'a fraction for an integer',
    method: 'PUT',
    path: '/api/v1/billing/payment-settings',
    body: { payment_method: { ...CARD, exp_month: 1.5 } },
    loc: ['body', 'payment_method', 'exp_month'],
    msg: 'Input should be a valid integer',
  },
  {
    what: 'a string for a boolean',
    method: 'PATCH',
    path: '/api/v1/config/channels',
    body: { email_enabled: 'yes' },
    loc: ['body', 'email_enabled'],
    msg: 'Input should be a valid boolean',
  },
  {
    what: 'null for a required string',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { subject: null },
    loc: ['body', 'subject'],
  },
  // enums
  {
    what: 'an unknown priority',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, priority: 'asap' },
    loc: ['body', 'priority'],
    msg: "Input should be 'low', 'medium', 'high' or 'urgent'",
  },
  {
    what: 'an unknown plan',
    method: 'POST',
    path: '/api/v1/tenants',
    as: 'super',
    body: { name: 'Acme', plan: 'gold', environment: 'production' },
    loc: ['body', 'plan'],
  },
  {
    what: 'an unknown sort in the query',
    method: 'GET',
    path: '/api/v1/calls?sort=loudest',
    loc: ['query', 'sort'],
  },
  {
    what: 'an unknown export format',
    method: 'POST',
    path: '/api/v1/tenant/exports',
    body: { resource: 'tickets', format: 'xlsx' },
    loc: ['body', 'format'],
  },
  // unknown keys
  {
    what: 'an unknown field',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, urgency: 'high' },
    loc: ['body', 'urgency'],
    msg: 'Extra inputs are not permitted',
  },
  {
    what: 'an unknown nested field',
    method: 'PATCH',
    path: '/api/v1/config/general',
    body: { business_hours: { start: '09:00', end: '17:00', days: ['mon'], lunch: '12:00' } },
    loc: ['body', 'business_hours', 'lunch'],
  },
  // unions
  {
    what: 'an object where a field value is scalar or a list',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, custom_fields: { order: { id: 1 } } },
    loc: ['body', 'custom_fields', 'order'],
    msg: 'Input should be a string, a number, a boolean, a list of strings or null',
  },
  {
    what: 'neither a date-time nor a date',
    method: 'GET',
    path: '/api/v1/usage/details?from=yesterday',
    loc: ['query', 'from'],
    msg: 'Input should be an ISO 8601 date-time (2026-03-14T09:26:53Z) or a date (YYYY-MM-DD)',
  },
  // arrays
  {
    what: 'an over-long tag in a list',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, tags: ['x'.repeat(51)] },
    loc: ['body', 'tags', 0],
    msg: 'String should have at most 50 characters',
  },
  {
    what: 'a wrong type inside a list',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, tags: [7] },
    loc: ['body', 'tags', 0],
  },
  {
    what: 'an empty list where one item is needed',
    method: 'POST',
    path: '/api/v1/api-keys',
    body: { name: 'CI', scopes: [] },
    loc: ['body', 'scopes'],
  },
  {
    what: 'an unknown weekday in a nested list',
    method: 'PATCH',
    path: '/api/v1/config/general',
    body: { business_hours: { start: '09:00', end: '17:00', days: ['someday'] } },
    loc: ['body', 'business_hours', 'days', 0],
  },
  // records
  {
    what: 'a string for a record',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, custom_fields: 'order=1' },
    loc: ['body', 'custom_fields'],
    msg: 'Input should be a valid object',
  },
  {
    what: 'an over-long record key',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, custom_fields: { ['k'.repeat(65)]: 1 } },
    loc: ['body', 'custom_fields', 'k'.repeat(65)],
  },
  // bounds and formats, nested
  {
    what: 'a month past 12',
    method: 'PUT',
    path: '/api/v1/billing/payment-settings',
    body: { payment_method: { ...CARD, exp_month: 13 } },
    loc: ['body', 'payment_method', 'exp_month'],
    msg: 'Input should be less than or equal to 12',
  },
  {
    what: 'a 2-digit cvc',
    method: 'PUT',
    path: '/api/v1/billing/payment-settings',
    body: { payment_method: { ...CARD, cvc: '12' } },
    loc: ['body', 'payment_method', 'cvc'],
  },
  {
    what: 'a query parameter given twice',
    method: 'GET',
    path: '/api/v1/tickets?limit=1&limit=2',
    loc: ['query', 'limit'],
    msg: 'Input should be one value: give the parameter once (a comma list where it takes several)',
  },
  {
    what: 'a list parameter given twice instead of as a comma list',
    method: 'GET',
    path: '/api/v1/tickets?status=open&status=pending',
    loc: ['query', 'status'],
    msg: 'Input should be one value: give the parameter once (a comma list where it takes several)',
  },
  {
    what: 'a date-time that is not one',
    method: 'GET',
    path: '/api/v1/tickets?created_after=last-week',
    loc: ['query', 'created_after'],
  },
  {
    what: 'an address that is not a URL',
    method: 'POST',
    path: '/api/v2/companies',
    body: { name: 'Acme', website: 'acme dot com' },
    loc: ['body', 'website'],
  },
  {
    what: 'an email that is not one',
    method: 'POST',
    path: '/api/v1/tickets',
    body: { ...TICKET, requester_email: 'ana at example' },
    loc: ['body', 'requester_email'],
  },
];

const isZodDefault = (msg: string) => ZOD_DEFAULTS.some((re) => re.test(msg));

describe.skipIf(postgresUnavailable())("422 messages never use zod's default wording", () => {
  let h: Harness;
  let t: TestTenant;
  let superToken: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    superToken = await h.superToken();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('recognises zod’s own phrases (the check can fail)', () => {
    expect(isZodDefault('Invalid input: expected string, received number')).toBe(true);
    expect(isZodDefault('Too big: expected string to have <=200 characters')).toBe(true);
    expect(isZodDefault('Invalid option: expected one of "a"|"b"')).toBe(true);
    expect(isZodDefault('Field required')).toBe(false);
  });

  it.each(CASES)('$what: $method $path', async (c) => {
    const bearer = c.as === 'super' ? superToken : t.adminToken;
    const res = await h.request(c.method, c.path, {
      bearer,
      ...(c.body !== undefined ? { body: c.body } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const issues = res.body.detail as { loc: unknown[]; msg: string; type: string }[];
    const issue = issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(c.loc));
    expect(issue, `no issue at ${JSON.stringify(c.loc)}: ${JSON.stringify(issues)}`).toBeDefined();
    if (c.msg) expect(issue?.msg).toBe(c.msg);
    expect(issues.filter((i) => isZodDefault(i.msg))).toEqual([]);
  });
});
