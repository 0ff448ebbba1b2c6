// Every function's route declarations (what its routes.ts declares with `defineRoute`, found among
// the module's exports) and named schemas (`components`), for the OpenAPI documents (public and
// internal), the schema-driven fuzz and the route-access test: one registry. A static list of
// modules (Workers bundle what they import), in manifest order: a new function adds its
// functions/<name>/routes.ts here; test/unit/route-access.test.ts fails until it does.
// Here each route gets its full access: a route declares only its role (or a required session),
// the manifest's rule for its path says the surface and scopes, as the gate applies them.
import { compileAccess, isScopeRule } from '../shared/auth/access';
import type { ComponentSet, RouteDef, RouteWithAccess } from '../shared/http/openapi';
import type { DocSource } from '../shared/http/openapi-doc';
import { routesOf, toHonoPath } from '../shared/http/route';
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
import * as files from './files/routes';
import * as health from './health/routes';
import * as helpdesk from './helpdesk/routes';
import * as kb from './kb/routes';
import { ACCESS_RULES } from './manifest';
import * as search from './search/routes';
import * as sla from './sla/routes';
import * as tenants from './tenants/routes';
import * as tickets from './tickets/routes';
import * as usage from './usage/routes';
import * as webhooks from './webhooks/routes';

/** The gate's lookups over every function's access rules, as the embedded server compiles them. */
export const ACCESS = compileAccess(ACCESS_RULES);

/** The rules of the API-key surface: the scope tests are generated from them. */
export const SCOPE_RULES = ACCESS_RULES.filter(isScopeRule);

/** A route with the surface and scopes the gate applies to its path, and its own role and session. */
function withAccess(route: RouteDef): RouteWithAccess {
  const { role, session } = route.access ?? {};
  const access = {
    ...ACCESS.accessOf(route.method, toHonoPath(route.path)),
    ...(role ? { role } : {}),
    ...(session ? { session } : {}),
  };
  return { ...route, access };
}

/** A function's declarations as the documents read them: each route with its access complete. */
const source = (name: string, fn: Record<string, unknown> & { components?: ComponentSet }): DocSource => ({
  name,
  routes: routesOf(fn).map(withAccess),
  ...(fn.components ? { components: fn.components } : {}),
});

/** In manifest order. */
export const DOC_SOURCES: readonly DocSource[] = [
  source('health', health),
  source('tenants', tenants),
  source('auth', auth),
  source('api-keys', apiKeys),
  source('search', search),
  source('tickets', tickets),
  source('calls', calls),
  source('webhooks', webhooks),
  source('conversations', conversations),
  source('contacts', contacts),
  source('kb', kb),
  source('usage', usage),
  source('billing', billing),
  source('directory', directory),
  source('exports', exportsRoutes),
  source('config', config),
  source('end-user', endUser),
  source('audit', audit),
  source('files', files),
  source('sla', sla),
  source('helpdesk', helpdesk),
  source('docs', docs),
  source('console', consoleApp),
  source('fallback', fallback),
];
