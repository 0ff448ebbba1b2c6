// Every function's route documentation, for the OpenAPI document. A static list (Workers bundle
// what they import): when a function gains functions/<name>/openapi.ts, add it here;
// test/integration/openapi.test.ts fails while one on disk is missing from this list.
import type { DocSource } from '../../shared/http/openapi-doc';
import { routes as apiKeys } from '../api-keys/openapi';
import { routes as audit } from '../audit/openapi';
import { routes as calls } from '../calls/openapi';
import { routes as conversations } from '../conversations/openapi';
import { routes as fallback } from '../fallback/openapi';
import { routes as health } from '../health/openapi';
import { routes as tenants } from '../tenants/openapi';
import { routes as tickets } from '../tickets/openapi';
import { routes as usage } from '../usage/openapi';
import { routes as webhooks } from '../webhooks/openapi';
import { routes as docs } from './openapi';

export const DOC_SOURCES: readonly DocSource[] = [
  { name: 'health', routes: health },
  { name: 'tenants', routes: tenants },
  { name: 'api-keys', routes: apiKeys },
  { name: 'tickets', routes: tickets },
  { name: 'calls', routes: calls },
  { name: 'webhooks', routes: webhooks },
  { name: 'conversations', routes: conversations },
  { name: 'usage', routes: usage },
  { name: 'audit', routes: audit },
  { name: 'docs', routes: docs },
  { name: 'fallback', routes: fallback },
];
