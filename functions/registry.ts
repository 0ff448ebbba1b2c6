// Every function's route declarations (`routes`) and named schemas (`components`), for the OpenAPI
// documents (public and internal), the schema-driven fuzz and the route-access test: one registry.
// A static list (Workers bundle what they import), in manifest order: a new function adds its
// functions/<name>/routes.ts here; test/unit/route-access.test.ts fails until it does.
import { compileAccess, isScopeRule } from '../shared/auth/access';
import type { DocSource } from '../shared/http/openapi-doc';
import * as apiKeys from './api-keys/routes';
import * as audit from './audit/routes';
import * as auth from './auth/routes';
import * as billing from './billing/routes';
import * as calls from './calls/routes';
import * as config from './config/routes';
import * as consoleApp from './console/routes';
import * as contacts from './contacts/routes';
import * as conversations from './conversations/routes';
import * as directory from './directory/routes';
import * as docs from './docs/routes';
import * as endUser from './end-user/routes';
import * as exportsRoutes from './exports/routes';
import * as fallback from './fallback/routes';
import * as health from './health/routes';
import * as kb from './kb/routes';
import { ACCESS_RULES } from './manifest';
import * as tenants from './tenants/routes';
import * as tickets from './tickets/routes';
import * as usage from './usage/routes';
import * as webhooks from './webhooks/routes';

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

/** The gate's lookups over every function's access rules, as the embedded server compiles them. */
export const ACCESS = compileAccess(ACCESS_RULES);

/** The rules of the API-key surface: the scope tests are generated from them. */
export const SCOPE_RULES = ACCESS_RULES.filter(isScopeRule);
