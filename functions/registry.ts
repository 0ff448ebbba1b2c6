// Every function's route documentation (`routes`) and named schemas (`components`), for the OpenAPI
// documents (public and internal) and the schema-driven fuzz: one registry. A static list (Workers
// bundle what they import): when a function gains functions/<name>/openapi.ts, add it here;
// test/integration/openapi.test.ts fails while one on disk is missing from this list.
import type { DocSource } from '../shared/http/openapi-doc';
import * as apiKeys from './api-keys/openapi';
import * as audit from './audit/openapi';
import * as auth from './auth/openapi';
import * as billing from './billing/openapi';
import * as calls from './calls/openapi';
import * as config from './config/openapi';
import * as consoleApp from './console/openapi';
import * as contacts from './contacts/openapi';
import * as conversations from './conversations/openapi';
import * as directory from './directory/openapi';
import * as docs from './docs/openapi';
import * as endUser from './end-user/openapi';
import * as exportsRoutes from './exports/openapi';
import * as fallback from './fallback/openapi';
import * as health from './health/openapi';
import * as kb from './kb/openapi';
import * as tenants from './tenants/openapi';
import * as tickets from './tickets/openapi';
import * as usage from './usage/openapi';
import * as webhooks from './webhooks/openapi';

/** In manifest order. */
export const DOC_SOURCES: readonly DocSource[] = [
  { name: 'health', ...health },
  { name: 'tenants', ...tenants },
  { name: 'auth', ...auth },
  { name: 'api-keys', ...apiKeys },
  { name: 'tickets', ...tickets },
  { name: 'calls', ...calls },
  { name: 'webhooks', ...webhooks },
  { name: 'conversations', ...conversations },
  { name: 'contacts', ...contacts },
  { name: 'kb', ...kb },
  { name: 'usage', ...usage },
  { name: 'billing', ...billing },
  { name: 'directory', ...directory },
  { name: 'exports', ...exportsRoutes },
  { name: 'config', ...config },
  { name: 'end-user', ...endUser },
  { name: 'audit', ...audit },
  { name: 'docs', ...docs },
  { name: 'console', ...consoleApp },
  { name: 'fallback', ...fallback },
];
