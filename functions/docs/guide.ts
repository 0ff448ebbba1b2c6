// The reader-facing text of the public reference: the getting-started section (info.description),
// and the tags in the order a newcomer needs them. Parameters are described by their own routes.
// Bundled by the docs Worker only (no handler imports this file).
import { Detail } from '../../shared/http/errors';
import type { ReferenceGuide } from '../../shared/http/openapi-doc';
import { WEBHOOK_EVENTS } from './events';
import { EXAMPLE_VALUES } from './examples';
import { FIELD_TEXT, PARAM_EXAMPLES } from './fields';

const GETTING_STARTED = `The API of a multi-tenant customer-support platform: tickets, voice calls, conversations,
contacts and companies, a knowledge base, usage and billing, API keys with scopes, and signed outbound webhooks.
Every operation below lists the credential it takes and, for API keys, the scopes it needs (\`x-required-scopes\`).

## Authentication

Two kinds of credential call the public API:

| credential | header | for |
|---|---|---|
| **API key** (\`itsm_sk_live_…\`, or \`itsm_sk_test_…\` for a sandbox tenant) | \`X-API-Key: <key>\` (or \`Authorization: Bearer <key>\`) | server-to-server integrations; scoped (\`tickets:read\`, \`tickets:write\`, …) |
| **Dashboard session** (JWT) | \`Authorization: Bearer <jwt>\` | the dashboard; roles \`agent\` < \`tenant_admin\` < \`super_admin\` |

API keys are created, rotated and revoked with a dashboard session (**API keys** group); the key itself is
shown only once, in the creation response. Operations in the dashboard-only groups refuse API keys with
\`403 {"detail": "${Detail.apiKeyNotPermitted}"}\`. A key without a needed scope gets
\`403 {"detail": "API key missing required scope: tickets:write"}\`. API keys are for servers: never ship one
to a browser (the widget, help-center and end-user routes exist for that).

In the examples, \`BASE_URL\` is this server's address (the document's \`servers\` entry; the /docs page shows
it filled in):

\`\`\`sh
curl $BASE_URL/api/v1/tickets -H "X-API-Key: itsm_sk_live_…"
\`\`\`

## Errors

Every error is JSON with one fixed, human-readable string (the exact strings are part of the contract and are
shown with each operation):

\`\`\`json
{"detail": "Ticket not found"}
\`\`\`

Invalid input (body, query, path or header) is **422** with one entry per problem:

\`\`\`json
{"detail": [{"loc": ["body", "subject"], "msg": "Field required", "type": "missing"}]}
\`\`\`

| status | meaning |
|---|---|
| 400 | a well-formed request the operation refuses (e.g. a webhook URL that is not https) |
| 401 | no credential, or an invalid one (\`WWW-Authenticate: Bearer\`) |
| 403 | valid credential without the scope, role or surface needed |
| 404 | no such resource in your tenant (another tenant's ids are 404 too) |
| 409 | conflicts with the resource's state (e.g. a reply to a closed ticket) |
| 422 | invalid input |
| 429 | rate limited (\`Retry-After\`) |
| 503 | a backing service is briefly unavailable (\`Retry-After\`); safe to retry |

Every response carries \`X-Request-Id\` (yours, if you send one of up to 128 characters; otherwise a new one):
quote it when you report a problem.

## Pagination

Lists take \`limit\` and \`offset\` and answer an envelope with the page and the total (the webhook and
API-key lists are whole, and the delivery log takes \`limit\` only: see each operation):

\`\`\`json
{"tickets": [{"id": "tkt_0mhbq3k8zHkR2d9TQx7pLw", "subject": "Printer on fire", "…": "…"}], "total": 42, "limit": 20, "offset": 0}
\`\`\`

Ask for the next page with \`offset = offset + limit\` until \`offset >= total\`. To mirror tickets, calls,
conversations or contacts incrementally, use \`sort=updated_at\` with \`updated_since\` (inclusive) set to the
last \`updated_at\` you saw.

## Rate limits

Each tenant has per-minute and 10-second budgets by plan and by kind of request (read, write, export). Every
counted response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds).
Over the limit: \`429 {"detail": "${Detail.rateLimited}"}\` with \`Retry-After\` in seconds; wait that long and retry.

## Idempotency

Send \`Idempotency-Key: <unique string>\` on any POST or PATCH of the API-key surface. A retry with the same
key within 24 hours gets the first response again (\`Idempotent-Replayed: true\`) instead of running twice;
the same key with a different request is 422; a retry while the first still runs is 409.

## Webhooks

Subscribe with \`POST /api/v1/webhooks\` (\`{"url": "https://…", "events": ["ticket.created"]}\`); keep the
\`secret\` (\`whsec_…\`) of the response, it is shown only there. Each delivery is a POST of
\`{"event_type", "timestamp", "data"}\` with \`X-Webhook-Event\`, \`X-Webhook-Timestamp\`,
\`X-Webhook-Signature\` and \`X-Webhook-Delivery-Id\`. Answer 2xx within 10 s; failures are retried with backoff.
Delivery is at least once: deduplicate on \`X-Webhook-Delivery-Id\`.

The signature is the lowercase hex HMAC-SHA256, keyed with the secret, of \`X-Webhook-Timestamp + "." + raw body\`.
Verify it against the **raw** body, in constant time:

\`\`\`js
import crypto from 'node:crypto';

function verify(rawBody, headers, secret) {
  const expected = crypto
    .createHmac('sha256', secret)
    .update(\`\${headers['x-webhook-timestamp']}.\${rawBody}\`)
    .digest('hex');
  const given = String(headers['x-webhook-signature'] ?? '');
  return given.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
\`\`\`

(\`verifyWebhookSignature\` in \`clients/typescript/webhooks.ts\` does the same with Web Crypto, and checks the
timestamp's age.)`;

/** Reading order: concepts first, then the integrator's resources, then dashboard-only groups. */
const TAGS: ReferenceGuide['tags'] = [
  {
    name: 'Health',
    description: 'Is the API up, and is its database reachable. No credential: a first call to try.',
  },
  {
    name: 'Tickets',
    description:
      'The unit of support work: a subject, a status that moves through `new`/`open`/`pending`/`on_hold`/`resolved`/`closed`, a priority, tags, and public or internal replies. Every change emits a webhook event.',
  },
  {
    name: 'Calls',
    description:
      'Voice calls handled by the AI voice agent: direction, outcome, duration, summary, escalations to a human. Read-only for integrators (calls are recorded by the voice agent).',
  },
  {
    name: 'Files',
    description:
      'Signed download links of attachments and call recordings: no credential, expiring (ATTACHMENT_URL_TTL_S), served as attachments. Uploads live under their ticket, conversation or call.',
  },
  {
    name: 'Voice widget',
    description: 'Short-lived tokens for the in-browser voice widget, minted by your server with an API key.',
  },
  {
    name: 'Conversations',
    description:
      'Messaging threads with a contact on one channel (email, widget, WhatsApp, phone, API): messages, assignment, status, and exports of the transcript.',
  },
  {
    name: 'Webhooks',
    description:
      'Signed HTTPS callbacks for events (`ticket.created`, `call.completed`, …): subscriptions, the delivery log, redelivery and recovery. See "Webhooks" above for the signature.',
  },
  {
    name: 'Webhooks (dashboard)',
    description:
      'The console’s webhook operations, for a dashboard session only (API keys are refused): edit a subscription, send it a test event, rotate its secret, list the event types.',
  },
  {
    name: 'Usage',
    description:
      'What the tenant consumed this period (API requests, call minutes, webhook deliveries) against its plan.',
  },
  {
    name: 'Billing',
    description: 'Plan, plans on offer, invoices and payment settings.',
  },
  {
    name: 'Requesters',
    description: 'The people who raise tickets (end users of the tenant), with their ticket counts.',
  },
  {
    name: 'Exports',
    description:
      'Asynchronous CSV or JSON exports of tickets, calls, contacts, conversations or usage, downloaded when done.',
  },
  {
    name: 'Tenant',
    description: 'The tenant itself: name, plan and environment.',
  },
  {
    name: 'Tenant users',
    description: 'Agents and admins of the tenant, with their roles.',
  },
  {
    name: 'Configuration',
    description:
      'Tenant settings by section (general, branding, channels, onboarding); `/api/v1/configuration` is an alias of `/api/v1/config`.',
  },
  { name: 'Integrations', description: 'Credentials and settings of third-party integrations, by provider.' },
  { name: 'Telephony', description: 'Phone numbers and call recording/transcription settings.' },
  { name: 'Onboarding', description: 'Progress through the onboarding checklist.' },
  {
    name: 'Inbound channels',
    description:
      'Messages arriving from the public chat widget (no credential), creating or continuing a conversation.',
  },
  {
    name: 'Help center',
    description:
      "A tenant's published knowledge-base articles, public (no credential), for its help-center site.",
  },
  {
    name: 'End-user sign-in',
    description:
      "How the tenant's own customers (end users) get an end-user token: sign up, log in with a password or a magic link. No credential needed.",
  },
  {
    name: 'End-user API',
    description:
      "For the tenant's own customers (end users), with the end-user token from End-user sign-in: their profile and their own tickets.",
  },
  {
    name: 'Dashboard sign-in',
    description:
      'How a tenant admin gets the dashboard session the dashboard-only operations take: sign in with email and password (a 900 s access token and a single-use refresh token), refresh, sign out, accept an invite, reset a forgotten password. API keys are refused here.',
  },
  {
    name: 'API keys',
    description:
      'Dashboard only: create (the key is shown once), list, rotate, revoke and delete the API keys integrations use, each with its scopes.',
  },
  {
    name: 'Tenants',
    description: 'Platform operators only (`super_admin` session): create and read tenants.',
  },
  {
    name: 'Contacts',
    description: 'Dashboard only: the people conversations are with, with soft delete and restore.',
  },
  {
    name: 'Companies',
    description: 'Dashboard only: organisations contacts belong to, with soft delete and restore.',
  },
  {
    name: 'Contact sync',
    description: 'Dashboard only: connections to external helpdesks and the runs that import their contacts.',
  },
  {
    name: 'Conversations (dashboard)',
    description: 'Dashboard-session twins of the Conversations operations, under `/api/v2/conversations`.',
  },
  {
    name: 'Knowledge base',
    description:
      'Dashboard only: write articles and publish them to the help center and connected providers.',
  },
  {
    name: 'Search',
    description:
      'Dashboard only: one query over tickets, conversations, contacts and companies (docs/search.md). Tickets alone, with an API key: `GET /api/v1/tickets/search` under Tickets.',
  },
  { name: 'Audit log', description: 'Dashboard only: who changed what, and when.' },
  {
    name: 'SLA',
    description:
      'Dashboard only: business hours (time zone, weekly intervals, holidays) and SLA policies, whose due times every ticket and conversation carries as `sla`.',
  },
  {
    name: 'Teams',
    description: 'Dashboard only: teams of agents, and how an assignment to a team picks its member.',
  },
  {
    name: 'Saved replies',
    description: 'Dashboard only: reply texts with placeholders, sent with `saved_reply_id`.',
  },
  {
    name: 'Ticket fields',
    description: "Dashboard only: the typed custom fields of the tenant's tickets (`custom_fields`).",
  },
  { name: 'Documentation', description: 'This document, as JSON (the reference page at /docs reads it).' },
];

export const REFERENCE_GUIDE: ReferenceGuide = {
  description: GETTING_STARTED,
  tags: TAGS,
  paramExamples: PARAM_EXAMPLES,
  fields: FIELD_TEXT,
  examples: EXAMPLE_VALUES,
  webhooks: WEBHOOK_EVENTS,
};
