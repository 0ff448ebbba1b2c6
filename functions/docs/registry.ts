// Every function's route documentation, for the OpenAPI document. A static list (Workers bundle
// what they import): when a function gains functions/<name>/openapi.ts, add it here;
// test/integration/openapi.test.ts fails while one on disk is missing from this list.
import type { DocSource } from '../../shared/http/openapi-doc';
import { routes as apiKeys } from '../api-keys/openapi';
import { routes as audit } from '../audit/openapi';
import { routes as auth } from '../auth/openapi';
import { routes as billing } from '../billing/openapi';
import { routes as calls } from '../calls/openapi';
import { routes as config } from '../config/openapi';
import { routes as consoleRoutes } from '../console/openapi';
import { routes as contacts } from '../contacts/openapi';
import { routes as conversations } from '../conversations/openapi';
import { routes as directory } from '../directory/openapi';
import { routes as endUser } from '../end-user/openapi';
import { routes as exportsRoutes } from '../exports/openapi';
import { routes as fallback } from '../fallback/openapi';
import { routes as health } from '../health/openapi';
import { routes as kb } from '../kb/openapi';
import { routes as tenants } from '../tenants/openapi';
import { routes as tickets } from '../tickets/openapi';
import { routes as usage } from '../usage/openapi';
import { routes as webhooks } from '../webhooks/openapi';
import { routes as docs } from './openapi';

/** In manifest order. */
export const DOC_SOURCES: readonly DocSource[] = [
  { name: 'health', routes: health },
  { name: 'tenants', routes: tenants },
  { name: 'auth', routes: auth },
  { name: 'api-keys', routes: apiKeys },
  { name: 'tickets', routes: tickets },
  { name: 'calls', routes: calls },
  { name: 'webhooks', routes: webhooks },
  { name: 'conversations', routes: conversations },
  { name: 'contacts', routes: contacts },
  { name: 'kb', routes: kb },
  { name: 'usage', routes: usage },
  { name: 'billing', routes: billing },
  { name: 'directory', routes: directory },
  { name: 'exports', routes: exportsRoutes },
  { name: 'config', routes: config },
  { name: 'end-user', routes: endUser },
  { name: 'audit', routes: audit },
  { name: 'docs', routes: docs },
  { name: 'console', routes: consoleRoutes },
  { name: 'fallback', routes: fallback },
];
