/**
 * One VALID request per operation of the OpenAPI document, for the schema-driven fuzz
 * (test/integration/schema-fuzz.test.ts): the credential its `x-surface` asks for (an API key
 * holding every scope of `x-required-scopes` on the API surface), path ids from fixtures seeded
 * through the API, and a body that is the operation's documented request example when it has one,
 * else a sample of its JSON Schema (openapi-sampler: deterministic, reads
 * `const`/`examples`/`enum`/`default`/formats), with references pointed at the fixtures. What a schema cannot say (a unique email, a reachable URL, a state a transition
 * needs) is in the tables below, one line per operation.
 */
import { sample } from 'openapi-sampler';
import { openApiDocument } from '../../functions/docs/document';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { signedLink } from '../../shared/files/links';
import type { Audience, OpenApiDocument } from '../../shared/http/openapi-doc';
import { MemoryRateLimiter } from '../../shared/ratelimit/limiter';
import type { Harness, TestTenant } from './harness';
import { signQStashCallback } from './qstash-mock';

export type Json = Record<string, any>;

export interface Operation {
  /** `POST /api/v1/tickets` */
  id: string;
  method: string;
  /** the document's template: `/api/v1/tickets/{ticket_id}` */
  path: string;
  op: Json;
  /** the document it belongs to: `public` (/api/v1/openapi.json) or `internal` (/api/internal/openapi.json) */
  audience: Audience;
}

const AUDIENCES: readonly Audience[] = ['public', 'internal'];

/** Every operation of both documents the route registry builds, exactly as the server serves them. */
export function documentAndOperations(): {
  docs: Record<Audience, OpenApiDocument>;
  operations: Operation[];
} {
  const docs = { public: openApiDocument('public'), internal: openApiDocument('internal') };
  const operations: Operation[] = [];
  for (const audience of AUDIENCES)
    for (const [path, item] of Object.entries(docs[audience].paths))
      for (const [method, op] of Object.entries(item as Record<string, Json>))
        operations.push({
          id: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          op,
          audience,
        });
  return { docs, operations };
}

/** Settings the fixtures need: QStash callbacks signed with a known key, webhook and sync targets on localhost. */
export const QSTASH_SIGNING_KEY = 'fuzz_signing_key';
export const PUBLIC_BASE_URL = 'https://api.fuzz.test';
export const FIXTURE_ENV = {
  WEBHOOK_SSRF_ALLOW: 'localhost',
  SYNC_HTTP_ALLOW_HOSTS: 'localhost',
  QSTASH_CURRENT_SIGNING_KEY: QSTASH_SIGNING_KEY,
  QSTASH_NEXT_SIGNING_KEY: `${QSTASH_SIGNING_KEY}_next`,
  PUBLIC_BASE_URL,
};

export type FixtureKind =
  | 'tenant'
  | 'ticket'
  | 'call'
  | 'webhook'
  | 'delivery'
  | 'conversation'
  | 'conversationExport'
  | 'tenantExport'
  | 'contact'
  | 'company'
  | 'article'
  | 'tenantUser'
  | 'apiKey'
  | 'requester'
  | 'endUserTicket'
  | 'syncRun'
  | 'invoice'
  | 'ticketAttachment'
  | 'conversationAttachment'
  | 'businessHours'
  | 'slaPolicy'
  | 'team'
  | 'savedReply'
  | 'ticketField';

/** One tenant's world: its credentials and one of each thing an operation can name. */
export interface TenantWorld {
  tenant: TestTenant;
  /** an API key holding every scope */
  key: string;
  endUser: { email: string; password: string; token: string };
  ids: Record<FixtureKind, string>;
}

export interface World {
  h: Harness;
  a: TenantWorld;
  /** a second tenant: its ids are the "foreign" ones */
  b: TenantWorld;
  superToken: string;
  internalToken: string;
  /** unique suffixes for fields that must not repeat (emails, names) */
  seq: () => number;
}

let counter = 0;
const next = () => ++counter;

async function ok(h: Harness, method: string, path: string, opts: Parameters<Harness['request']>[2]) {
  const res = await h.request(method, path, opts);
  if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** Factories for what destructive operations consume: each call makes a fresh one. */
export const FRESH: Partial<Record<FixtureKind, (w: World, t: TenantWorld) => Promise<string>>> = {
  team: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/teams', {
        bearer: t.tenant.adminToken,
        body: { name: `team ${next()}`, routing: 'manual', member_ids: [] },
      })
    ).id,
  savedReply: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/saved-replies', {
        bearer: t.tenant.adminToken,
        body: { title: `reply ${next()}`, body: 'Hello {{contact.first_name}}', visibility: 'tenant' },
      })
    ).id,
  ticketField: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/ticket-fields', {
        bearer: t.tenant.adminToken,
        body: { key: `fuzz_${next()}`, label: 'Fuzz field', type: 'text', required: false },
      })
    ).id,
  businessHours: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/business-hours', {
        bearer: t.tenant.adminToken,
        body: {
          name: `hours ${next()}`,
          timezone: 'Europe/Berlin',
          intervals: [{ day: 1, start: '09:00', end: '17:00' }],
        },
      })
    ).id,
  slaPolicy: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/sla-policies', {
        bearer: t.tenant.adminToken,
        // a condition no fixture matches: the other operations' records stay under no policy
        body: { name: `policy ${next()}`, conditions: { tags: ['fuzz-sla'] }, first_response_minutes: 60 },
      })
    ).id,
  apiKey: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v1/api-keys', {
        bearer: t.tenant.adminToken,
        body: { name: `fuzz ${next()}`, scopes: ['tickets:read'] },
      })
    ).id,
  webhook: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v1/webhooks', {
        apiKey: t.key,
        body: { url: 'https://localhost:9/hook', events: ['ticket.created'] },
      })
    ).id,
  call: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/internal/calls', {
        bearer: w.h.config.INTERNAL_API_TOKEN,
        body: { tenant_id: t.tenant.id },
      })
    ).id,
  tenantUser: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v1/tenant/users', {
        apiKey: t.key,
        body: { email: `agent${next()}@fuzz.test`, name: 'Fixture Agent', role: 'agent' },
      })
    ).id,
  contact: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/contacts', {
        bearer: t.tenant.adminToken,
        body: { email: `contact${next()}@fuzz.test`, first_name: 'Fixture' },
      })
    ).id,
  ticketAttachment: async (w, t) => uploadFixture(w, `/api/v1/tickets/${t.ids.ticket}/attachments`, t.key),
  conversationAttachment: async (w, t) =>
    uploadFixture(w, `/api/v1/conversations/${t.ids.conversation}/attachments`, t.key),
  company: async (w, t) =>
    (
      await ok(w.h, 'POST', '/api/v2/companies', {
        bearer: t.tenant.adminToken,
        body: { name: `Co ${next()}` },
      })
    ).id,
};

/** A file uploaded as the raw body (the attachment routes take no JSON). */
async function uploadFixture(w: Pick<World, 'h'>, path: string, key: string, type = 'text/plain') {
  const res = await w.h.runtime.app.request(`${path}?filename=fixture.txt`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': type },
    body: 'fixture file',
  });
  if (res.status !== 201) throw new Error(`fixture upload ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** The items of a list envelope (`{tickets: [...], total}`, `{data: [...]}`...) */
const itemsOf = (envelope: Json): Json[] => (Object.values(envelope).find(Array.isArray) as Json[]) ?? [];
function firstId(envelope: Json): string {
  const id = itemsOf(envelope)[0]?.id;
  if (typeof id !== 'string')
    throw new Error(`fixture: empty list ${JSON.stringify(envelope).slice(0, 200)}`);
  return id;
}

async function seedTenant(h: Harness, name: string, superToken: string): Promise<TenantWorld> {
  const tenant = await h.tenant({ name, plan: 'enterprise' });
  const key = await tenant.key([...SCOPE_CATALOG]);
  const admin = tenant.adminToken;
  const partial = { tenant, key } as TenantWorld;
  const w = { h, superToken } as World;
  const ids = { tenant: tenant.id } as Record<FixtureKind, string>;

  const webhook = await FRESH.webhook!(w, partial);
  ids.webhook = webhook;
  ids.ticket = (
    await ok(h, 'POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Fixture ticket' } })
  ).id;
  ids.call = await FRESH.call!(w, partial);
  ids.contact = await FRESH.contact!(w, partial);
  ids.company = await FRESH.company!(w, partial);
  ids.conversation = (
    await ok(h, 'POST', '/api/v1/conversations', {
      apiKey: key,
      body: { contact_id: ids.contact, subject: 'Fixture conversation' },
    })
  ).id;
  await ok(h, 'POST', `/api/v1/conversations/${ids.conversation}/messages`, {
    apiKey: key,
    body: { body: 'Hello' },
  });
  ids.conversationExport = (
    await ok(h, 'POST', `/api/v1/conversations/${ids.conversation}/export`, { apiKey: key, body: {} })
  ).id;
  ids.tenantExport = (
    await ok(h, 'POST', '/api/v1/tenant/exports', { apiKey: key, body: { resource: 'tickets' } })
  ).id;
  ids.article = (
    await ok(h, 'POST', '/api/kb/create-v2', {
      bearer: admin,
      body: { title: 'Fixture article', body: 'How to', destinations: ['native'], status: 'published' },
    })
  ).id;
  ids.tenantUser = await FRESH.tenantUser!(w, partial);
  ids.apiKey = await FRESH.apiKey!(w, partial);
  partial.ids = ids;
  ids.ticketAttachment = await FRESH.ticketAttachment!(w, partial);
  ids.conversationAttachment = await FRESH.conversationAttachment!(w, partial);
  // the call's recording (GET /api/v1/calls/{call_id}/recording redirects to it)
  const recorded = await h.runtime.app.request(`/api/internal/calls/${ids.call}/recording`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${h.config.INTERNAL_API_TOKEN}`, 'Content-Type': 'audio/wav' },
    body: 'RIFF fixture',
  });
  if (recorded.status !== 201) throw new Error(`fixture recording: ${recorded.status}`);
  ids.businessHours = await FRESH.businessHours!(w, partial);
  ids.slaPolicy = await FRESH.slaPolicy!(w, partial);
  ids.team = await FRESH.team!(w, partial);
  ids.savedReply = await FRESH.savedReply!(w, partial);
  ids.ticketField = await FRESH.ticketField!(w, partial);

  freshRateWindow({ h });
  const endUser = { email: `enduser${next()}@fuzz.test`, password: 'correct horse battery', token: '' };
  endUser.token = (
    await ok(h, 'POST', '/api/v1/app/auth/register', {
      body: { tenant_id: tenant.id, email: endUser.email, password: endUser.password, name: 'End User' },
    })
  ).access_token;
  ids.endUserTicket = (
    await ok(h, 'POST', '/api/v1/app/tickets', { bearer: endUser.token, body: { subject: 'Help me' } })
  ).id;
  ids.requester = firstId(await ok(h, 'GET', '/api/v1/requesters', { apiKey: key }));

  // a delivery: the ticket above was created before any worker pass; wait for its fan-out
  const deliveries = `/api/v1/webhooks/${webhook}/deliveries`;
  for (let i = 0; i < 100 && !itemsOf(await ok(h, 'GET', deliveries, { apiKey: key })).length; i++)
    await new Promise((r) => setTimeout(r, 50));
  ids.delivery = firstId(await ok(h, 'GET', deliveries, { apiKey: key }));
  ids.invoice = firstId(await ok(h, 'GET', '/api/v1/billing/invoices', { apiKey: key }));

  await ok(h, 'PUT', '/api/sync/contacts/connections/helpdesk_a', {
    bearer: admin,
    body: { base_url: 'https://localhost:9', api_token: 'fixture-token' },
  });
  ids.syncRun = (
    await ok(h, 'POST', '/api/sync/contacts/runs', { bearer: admin, body: { provider: 'helpdesk_a' } })
  ).id;
  return { tenant, key, endUser, ids };
}

export async function seedWorld(h: Harness): Promise<World> {
  const superToken = await h.superToken();
  const a = await seedTenant(h, 'Fuzz Tenant A', superToken);
  const b = await seedTenant(h, 'Fuzz Tenant B', superToken);
  // the background delivery worker would change rows between a probe's before and after counts
  await h.runtime.webhooks.stop();
  await h.runtime.drain();
  return { h, a, b, superToken, internalToken: h.config.INTERNAL_API_TOKEN, seq: next };
}

/**
 * Moves the embedded rate limiter's clock a window ahead: a valid request must not be refused
 * because the probes before it spent the budget (the per-IP limit of /api/v1/app/auth/* is 10 per
 * 10 s). The mutations still meet the limits, and 429 must be documented where they do.
 */
let clockOffset = 0;
export function freshRateWindow(w: { h: Harness }) {
  const limiter = w.h.runtime.services.rateLimiter;
  if (!(limiter instanceof MemoryRateLimiter)) return;
  clockOffset += 61_000;
  limiter.now = () => Date.now() + clockOffset;
}

/** `{segment before}/{param}` -> the fixture that fills it */
const PATH_FIXTURES: Record<string, FixtureKind> = {
  'tickets/{ticket_id}': 'ticket',
  'calls/{call_id}': 'call',
  'webhooks/{id}': 'webhook',
  'deliveries/{delivery_id}': 'delivery',
  'conversations/{id}': 'conversation',
  'exports/{export_id}': 'conversationExport',
  'exports/{id}': 'tenantExport',
  'users/{id}': 'tenantUser',
  // the fixture user is invited and never accepts: a pending invitation
  'invitations/{id}': 'tenantUser',
  'api-keys/{key_id}': 'apiKey',
  'requesters/{id}': 'requester',
  'contacts/{contact_id}': 'contact',
  'companies/{company_id}': 'company',
  'articles/{article_id}': 'article',
  'help-center/{tenant_id}': 'tenant',
  'tenants/{tenant_id}': 'tenant',
  'runs/{run_id}': 'syncRun',
  'invoices/{invoice_id}': 'invoice',
  'tickets/{id}': 'endUserTicket',
  'files/{file_id}': 'ticketAttachment',
  'business-hours/{id}': 'businessHours',
  'sla-policies/{id}': 'slaPolicy',
  'teams/{team_id}': 'team',
  'saved-replies/{saved_reply_id}': 'savedReply',
  'ticket-fields/{field_id}': 'ticketField',
};

/** Which fixture a path parameter names, or null (an enum, a file name: sampled from its schema). */
export function fixtureOfParam(path: string, name: string): FixtureKind | null {
  const segments = path.split('/');
  const at = segments.indexOf(`{${name}}`);
  // the same `attachments/{attachment_id}` under a ticket and a conversation: its owner decides
  if (name === 'attachment_id')
    return segments.includes('tickets') ? 'ticketAttachment' : 'conversationAttachment';
  return PATH_FIXTURES[`${segments[at - 1]}/{${name}}`] ?? null;
}

/** Body fields that reference another record, and the fixture a valid request points them at. */
export const BODY_REFERENCES: Record<string, FixtureKind> = {
  tenant_id: 'tenant',
  call_id: 'call',
  contact_id: 'contact',
  company_id: 'company',
  conversation_id: 'conversation',
  ticket_id: 'ticket',
  delivery_id: 'delivery',
  requester_id: 'requester',
  assignee_user_id: 'tenantUser',
  assignee_id: 'tenantUser',
  assignee_team_id: 'team',
  saved_reply_id: 'savedReply',
};

/** What a request is before it is sent: structured, so a mutation can change one part. */
export interface Probe {
  method: string;
  path: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** the JSON body, or undefined for none */
  body?: unknown;
  /** a raw body replacing `body` (invalid UTF-8, a number JSON cannot hold...) */
  rawBody?: string | Uint8Array;
}

type Credential = 'key' | 'admin' | 'agent' | 'super' | 'internal' | 'endUser' | 'none' | 'signed';
const CREDENTIAL_OF_SURFACE: Record<string, Credential> = {
  api: 'key',
  dashboard: 'admin',
  internal: 'internal',
  end_user: 'endUser',
  public: 'none',
  signed: 'signed',
};

interface Special {
  credential?: Credential;
  /** merged over the sampled body */
  body?: (w: World) => Json | Promise<Json>;
  query?: (w: World) => Record<string, string>;
  /** path ids that must be fresh (the operation consumes them) */
  fresh?: FixtureKind[];
  /** runs before the request (a state the operation needs) */
  before?: (w: World, probe: Probe) => Promise<void>;
  /** headers beside the credential's (a cookie and where the request comes from) */
  headers?: (w: World) => Promise<Record<string, string>>;
  /** body fields where an id of nothing is an answer, not a refusal (why: next to each use) */
  acceptsUnknown?: string[];
  /** fields where another tenant's record is the caller's to name (why: next to each use) */
  acceptsForeign?: string[];
}

const tenantId = (w: World) => w.a.tenant.id;

/** A tenant-A colleague invited and signed up through the API: its email, password and session pair. */
const SIGN_IN_PASSWORD = 'fuzz sign-in password';
async function signedUpUser(w: World) {
  const email = `member${w.seq()}@fuzz.test`;
  await ok(w.h, 'POST', '/api/v1/tenant/users', {
    bearer: w.a.tenant.adminToken,
    body: { email, role: 'agent' },
  });
  const session = await ok(w.h, 'POST', '/api/v1/auth/accept-invite', {
    body: { token: await mailedToken(w, email), password: SIGN_IN_PASSWORD },
  });
  return { email, refreshToken: session.refresh_token as string };
}

/** The token of the last mail sent to `to` (the harness keeps the development outbox). */
async function mailedToken(w: World, to: string): Promise<string> {
  const mail = (await w.h.outbox()).filter((m) => m.to === to).at(-1);
  if (!mail) throw new Error(`fixture: no mail to ${to}`);
  return new URL(mail.link).searchParams.get('token') as string;
}

/** What a schema cannot say, per operation. */
const SPECIAL: Record<string, Special> = {
  'POST /api/v1/tenants': { credential: 'super' },
  // a deleted file is gone: each delete takes its own
  'DELETE /api/v1/tickets/{ticket_id}/attachments/{attachment_id}': { fresh: ['ticketAttachment'] },
  'DELETE /api/v1/conversations/{id}/attachments/{attachment_id}': { fresh: ['conversationAttachment'] },
  // a signed link of this run (the documented one's signature belongs to the example)
  'GET /api/v1/files/{file_id}': {
    before: async (w, probe) => {
      const link = await signedLink(
        w.h.runtime.services.files!.signingKey,
        'http://fuzz.test',
        { id: probe.pathParams.file_id!, tenant_id: w.a.tenant.id },
        900,
      );
      Object.assign(probe.query, Object.fromEntries(new URL(link.url).searchParams));
    },
  },
  // sign-in: an account, a live refresh token, an unspent invite or reset token of this run
  'POST /api/v1/auth/login': {
    body: async (w) => {
      freshRateWindow(w);
      const { email } = await signedUpUser(w);
      return { email, password: SIGN_IN_PASSWORD, tenant_id: tenantId(w) };
    },
  },
  'POST /api/v1/auth/refresh': {
    body: async (w) => ({ refresh_token: (await signedUpUser(w)).refreshToken }),
  },
  // the console's renewal: the refresh token in its cookie, asked for from the server's own page
  'POST /api/v1/auth/session': {
    headers: async (w) => ({
      Cookie: `itsm_refresh=${(await signedUpUser(w)).refreshToken}`,
      'X-Session-Cookie': '1',
      Origin: new URL(PUBLIC_BASE_URL).origin,
    }),
  },
  'GET /api/v1/auth/me': { credential: 'admin' },
  'POST /api/v1/auth/logout': {
    body: async (w) => ({ refresh_token: (await signedUpUser(w)).refreshToken }),
  },
  'POST /api/v1/auth/accept-invite': {
    body: async (w) => {
      const email = `invitee${w.seq()}@fuzz.test`;
      await ok(w.h, 'POST', '/api/v1/tenant/users', {
        bearer: w.a.tenant.adminToken,
        body: { email, role: 'agent' },
      });
      return { token: await mailedToken(w, email), password: SIGN_IN_PASSWORD, name: 'Fuzz Invitee' };
    },
  },
  'POST /api/v1/auth/invite-preview': {
    body: async (w) => {
      const email = `previewed${w.seq()}@fuzz.test`;
      await ok(w.h, 'POST', '/api/v1/tenant/users', {
        bearer: w.a.tenant.adminToken,
        body: { email, role: 'agent' },
      });
      return { token: await mailedToken(w, email) };
    },
  },
  'POST /api/v1/auth/password-reset': {
    // the same 202 whether or not the account (or its tenant) exists: no account enumeration
    acceptsUnknown: ['tenant_id', 'email'],
    body: async (w) => {
      freshRateWindow(w);
      return { email: (await signedUpUser(w)).email, tenant_id: tenantId(w) };
    },
  },
  'POST /api/v1/auth/password-reset/confirm': {
    body: async (w) => {
      freshRateWindow(w);
      const { email } = await signedUpUser(w);
      await ok(w.h, 'POST', '/api/v1/auth/password-reset', { body: { email, tenant_id: tenantId(w) } });
      return { token: await mailedToken(w, email), password: 'a new fuzz password' };
    },
  },
  'GET /api/v1/tenants/{tenant_id}': { credential: 'super' },
  'POST /api/internal/calls': { body: (w) => ({ tenant_id: tenantId(w) }) },
  'POST /api/internal/calls/{call_id}/complete': {
    fresh: ['call'],
    // the documented example's times cannot know when this run's fresh call started
    body: (w) => ({
      tenant_id: tenantId(w),
      outcome: 'hung_up',
      ended_at: new Date(Date.now() + 60_000).toISOString(),
    }),
  },
  'POST /api/internal/calls/{call_id}/escalations': {
    fresh: ['call'],
    body: (w) => ({ tenant_id: tenantId(w), status: 'failed', reason: 'user_requested' }),
  },
  'POST /api/internal/channels/email': {
    // a new sender starts a conversation (the example's conversation_id names the documentation's)
    body: (w) => ({
      tenant_id: tenantId(w),
      from: `mailer${w.seq()}@fuzz.test`,
      body: 'Hi',
      conversation_id: undefined,
    }),
  },
  'POST /api/internal/channels/whatsapp': {
    body: (w) => ({
      tenant_id: tenantId(w),
      from: `+1555000${1000 + w.seq()}`,
      body: 'Hi',
      conversation_id: undefined,
    }),
  },
  'POST /api/internal/calls/{call_id}/recording': {
    // the internal token is the platform's, not a tenant's, and the request names no tenant: the
    // call id alone says whose call the recording is
    acceptsForeign: ['call_id'],
  },
  'POST /api/internal/usage/report': {
    body: () => {
      const d = new Date();
      d.setUTCMonth(d.getUTCMonth() - 1);
      return { period: d.toISOString().slice(0, 7) };
    },
  },
  'POST /api/internal/webhooks/qstash': {
    body: (w) => ({ delivery_id: w.a.ids.delivery, attempt: 2 }),
    // a delivery that is gone is acknowledged (200 skipped), or QStash would retry it for days
    acceptsUnknown: ['delivery_id'],
  },
  'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': {
    // a pending delivery is 409; the probes before may have put it back in the queue
    before: async (w, p) => {
      await w.h.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed' })
        .where('id', '=', p.pathParams.delivery_id ?? '')
        .execute();
    },
  },
  'POST /api/kb/create-v2': { body: () => ({ title: 'Fuzz article', body: 'Text' }) },
  'PUT /api/sync/contacts/connections/{provider}': {
    body: () => ({ base_url: 'https://localhost:9', api_token: 'fuzz-token' }),
  },
  'DELETE /api/sync/contacts/connections/{provider}': {
    before: async (w, p) => {
      await ok(w.h, 'PUT', `/api/sync/contacts/connections/${p.pathParams.provider}`, {
        bearer: w.a.tenant.adminToken,
        body: { base_url: 'https://localhost:9', api_token: 'fuzz-token' },
      });
    },
  },
  'POST /api/v1/api-keys': { body: (w) => ({ name: `fuzz ${w.seq()}`, scopes: ['tickets:read'] }) },
  'DELETE /api/v1/api-keys/{key_id}': { fresh: ['apiKey'] },
  'DELETE /api/v2/business-hours/{id}': { fresh: ['businessHours'] },
  'DELETE /api/v2/sla-policies/{id}': { fresh: ['slaPolicy'] },
  'DELETE /api/v2/teams/{team_id}': { fresh: ['team'] },
  'DELETE /api/v2/saved-replies/{saved_reply_id}': { fresh: ['savedReply'] },
  'DELETE /api/v2/ticket-fields/{field_id}': { fresh: ['ticketField'] },
  // members are active users of the tenant
  'POST /api/v2/teams': { body: (w) => ({ member_ids: [w.a.ids.tenantUser] }) },
  'PATCH /api/v2/teams/{team_id}': { body: (w) => ({ member_ids: [w.a.ids.tenantUser] }) },
  'POST /api/v1/api-keys/{key_id}/revoke': { fresh: ['apiKey'] },
  'POST /api/v1/api-keys/{key_id}/rotate': { fresh: ['apiKey'] },
  'POST /api/v1/app/auth/login': {
    body: (w) => ({ tenant_id: tenantId(w), email: w.a.endUser.email, password: w.a.endUser.password }),
  },
  'POST /api/v1/app/auth/magic-link': { body: (w) => ({ tenant_id: tenantId(w), email: w.a.endUser.email }) },
  'POST /api/v1/app/auth/magic-link/verify': {
    body: async (w) => {
      freshRateWindow(w);
      await ok(w.h, 'POST', '/api/v1/app/auth/magic-link', {
        body: { tenant_id: tenantId(w), email: w.a.endUser.email },
      });
      // the token is only in the mail
      return { token: await mailedToken(w, w.a.endUser.email) };
    },
  },
  'POST /api/v1/app/auth/register': {
    body: (w) => ({ tenant_id: tenantId(w), email: `new${w.seq()}@fuzz.test`, password: 'long enough pw' }),
  },
  'PUT /api/v1/billing/plan': { body: () => ({ plan: 'enterprise' }) },
  'PATCH /api/v1/billing/plan': { body: () => ({ plan: 'enterprise' }) },
  'POST /api/v1/conversations': { body: (w) => ({ contact_id: w.a.ids.contact, subject: 'Fuzz' }) },
  'POST /api/v2/conversations': { body: (w) => ({ contact_id: w.a.ids.contact, subject: 'Fuzz' }) },
  'PATCH /api/v1/conversations/{id}': { body: () => ({ subject: 'Renamed' }) },
  'PATCH /api/v2/conversations/{id}': { body: () => ({ subject: 'Renamed' }) },
  'POST /api/v1/conversations/{id}/assign': { body: (w) => ({ assignee_user_id: w.a.ids.tenantUser }) },
  'POST /api/v2/conversations/{id}/assign': { body: (w) => ({ assignee_user_id: w.a.ids.tenantUser }) },
  'PATCH /api/v1/tenant/users/{id}': { body: () => ({ name: 'Renamed Agent' }) },
  'DELETE /api/v1/tenant/users/{id}': { fresh: ['tenantUser'] },
  'DELETE /api/v1/tenant/invitations/{id}': { fresh: ['tenantUser'] },
  'POST /api/v1/tenant/users': { body: (w) => ({ email: `user${w.seq()}@fuzz.test`, role: 'agent' }) },
  'PATCH /api/v1/tickets/{ticket_id}': { body: () => ({ priority: 'high' }) },
  'POST /api/v1/webhooks': { body: () => ({ url: 'https://localhost:9/hook', events: ['ticket.created'] }) },
  'DELETE /api/v1/webhooks/{id}': { fresh: ['webhook'] },
  'POST /api/v1/webhooks/{id}/recover': {
    body: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }),
  },
  // the example's host is the documentation's (it resolves nowhere): point it at the local receiver
  'PATCH /api/v2/webhooks/{id}': { body: () => ({ is_active: true, url: 'https://localhost:9/hook' }) },
  'POST /api/v1/widget/messages': {
    body: (w) => ({
      tenant_id: tenantId(w),
      body: 'Hi',
      email: `visitor${w.seq()}@fuzz.test`,
      conversation_id: undefined, // a new visitor starts a conversation
    }),
  },
  'PATCH /api/v2/companies/{company_id}': { body: () => ({ industry: 'Software' }) },
  'DELETE /api/v2/companies/{company_id}': { fresh: ['company'] },
  'POST /api/v2/companies/{company_id}/restore': {
    fresh: ['company'],
    before: async (w, p) => {
      await ok(w.h, 'DELETE', `/api/v2/companies/${p.pathParams.company_id}`, {
        bearer: w.a.tenant.adminToken,
      });
    },
  },
  'POST /api/v2/contacts': { body: (w) => ({ email: `c${w.seq()}@fuzz.test`, first_name: 'Fuzz' }) },
  // the example's external_id is unique per tenant, and POST /api/v2/contacts may already have taken it
  'PATCH /api/v2/contacts/{contact_id}': { body: () => ({ first_name: 'Renamed', external_id: undefined }) },
  'DELETE /api/v2/contacts/{contact_id}': { fresh: ['contact'] },
  'POST /api/v2/contacts/{contact_id}/restore': {
    fresh: ['contact'],
    before: async (w, p) => {
      await ok(w.h, 'DELETE', `/api/v2/contacts/${p.pathParams.contact_id}`, {
        bearer: w.a.tenant.adminToken,
      });
    },
  },
  'PATCH /api/v2/kb/articles/{article_id}': { body: () => ({ title: 'Renamed article' }) },
  'PATCH /api/v1/tenant': { body: () => ({ name: 'Fuzz Tenant A' }) },
};

/** The documented request example, if the operation has one. */
function documentedExample(media: Json | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values((media.examples ?? {}) as Record<string, Json>)[0];
  return first?.value;
}

/** Points every reference field present in a body at tenant A's fixture. */
function pointReferences(body: unknown, w: World): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Json = { ...(body as Json) };
  for (const [field, kind] of Object.entries(BODY_REFERENCES))
    if (field in out && typeof out[field] === 'string') out[field] = w.a.ids[kind];
  return out;
}

/** Whether an operation consumes fixtures (so each probe gets its own valid request). */
export const consumesFixtures = (operation: Operation) => Boolean(SPECIAL[operation.id]?.fresh);
export const acceptsUnknown = (operation: Operation, field: string) =>
  SPECIAL[operation.id]?.acceptsUnknown?.includes(field) ?? false;
export const acceptsForeign = (operation: Operation, field: string) =>
  SPECIAL[operation.id]?.acceptsForeign?.includes(field) ?? false;

export function bodySchemaOf(op: Json): Json | undefined {
  return op.requestBody?.content?.['application/json']?.schema;
}

/** Builds the valid request of an operation (creating fresh fixtures for destructive ones). */
export async function validProbe(w: World, operation: Operation, doc: OpenApiDocument): Promise<Probe> {
  const { op } = operation;
  const special = SPECIAL[operation.id] ?? {};
  const probe: Probe = {
    method: operation.method,
    path: operation.path,
    pathParams: {},
    query: {},
    headers: {},
  };
  for (const param of (op.parameters ?? []) as Json[]) {
    if (param.in === 'path') {
      const kind = fixtureOfParam(operation.path, param.name);
      if (kind && special.fresh?.includes(kind)) probe.pathParams[param.name] = await FRESH[kind]!(w, w.a);
      else if (kind) probe.pathParams[param.name] = w.a.ids[kind];
      else probe.pathParams[param.name] = String(sample(param.schema, { quiet: true }, doc));
    } else if (param.in === 'query' && param.required) {
      probe.query[param.name] = String(sample(param.schema, { quiet: true }, doc));
    }
  }
  Object.assign(probe.query, special.query?.(w) ?? {});
  const media = op.requestBody?.content?.['application/json'];
  if (media) {
    const example = documentedExample(media);
    let body: unknown =
      example !== undefined
        ? structuredClone(example)
        : sample(media.schema, { skipNonRequired: true, skipReadOnly: true, quiet: true }, doc);
    body = pointReferences(body, w);
    // over the example too: an example cannot know this run's fixtures (the end user's password...)
    if (special.body) body = { ...(body as Json), ...(await special.body(w)) };
    probe.body = body;
  }
  await special.before?.(w, probe);
  const credential = special.credential ?? CREDENTIAL_OF_SURFACE[op['x-surface'] as string] ?? 'none';
  probe.headers = { ...credentialHeaders(w, credential), ...(await special.headers?.(w)) };
  // a file upload: the documented example file, as the raw body under the first media type
  const file = Object.entries<Json>(op.requestBody?.content ?? {}).find(
    ([type]) => type !== 'application/json',
  );
  if (file && !media) {
    probe.rawBody = String(documentedExample(file[1]));
    probe.headers['Content-Type'] = file[0];
  }
  if (credential === 'signed') probe.headers['x-fuzz-sign'] = 'qstash';
  return probe;
}

function credentialHeaders(w: World, credential: Credential): Record<string, string> {
  switch (credential) {
    case 'key':
      return { 'X-API-Key': w.a.key };
    case 'admin':
      return { Authorization: `Bearer ${w.a.tenant.adminToken}` };
    case 'super':
      return { Authorization: `Bearer ${w.superToken}` };
    case 'internal':
      return { Authorization: `Bearer ${w.internalToken}` };
    case 'endUser':
      return { Authorization: `Bearer ${w.a.endUser.token}` };
    default:
      return {};
  }
}

export const urlOf = (probe: Probe) => {
  const path = probe.path.replace(/\{([^}]+)\}/g, (_, name: string) => probe.pathParams[name] ?? '');
  const query = Object.entries(probe.query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
    .join('&');
  return query ? `${path}?${query}` : path;
};

export interface Sent {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/**
 * Sends a probe in-process. Query values and path params are put in the URL as given (the
 * mutations percent-encode them, so they can carry bytes no string encodes, like `%FF`).
 */
export async function send(w: World, probe: Probe): Promise<Sent> {
  const headers = { ...probe.headers };
  let body: string | Uint8Array | undefined = probe.rawBody;
  if (body === undefined && probe.body !== undefined) {
    body = JSON.stringify(probe.body);
    headers['Content-Type'] ??= 'application/json';
  }
  // QStash signs the body it sends: sign what is sent (raw bytes go unsigned: 401)
  if (headers['x-fuzz-sign']) {
    delete headers['x-fuzz-sign'];
    if (typeof body === 'string')
      headers['Upstash-Signature'] = await signQStashCallback(
        QSTASH_SIGNING_KEY,
        `${PUBLIC_BASE_URL}${probe.path}`,
        body,
      );
  }
  const bodyless = probe.method === 'GET' || probe.method === 'HEAD';
  const res = await w.h.runtime.app.request(urlOf(probe), {
    method: probe.method,
    headers,
    body: bodyless ? undefined : (body as BodyInit | undefined),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}
