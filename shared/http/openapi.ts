import type { ZodType } from 'zod';
import type { Role } from '../context/roles';
import type { Scope } from '../context/scopes';
import type { Surface } from '../context/surface';
import type { EventType } from '../events/catalog';

/**
 * Who may call a route. The gate decides by path before routing, from the manifest's prefix rules
 * (functions/manifest.ts, compiled by shared/auth/access.ts): the surface and, on the `api` surface,
 * the scopes. A route declares only what the gate cannot know and the handler checks (`RouteAccess`);
 * where the routes are collected (functions/registry.ts) the two are joined into this, which the
 * OpenAPI document reads.
 */
export interface Access {
  /** the credential the path takes (`surfaceOf(path)`) */
  surface: Surface;
  /** what an API key needs on an `api` route: the prefix scope first, then any extra scope */
  scopes?: readonly Scope[];
  /** the least dashboard role; `register` checks it before validation. API keys answer to their scopes. */
  role?: Role;
  /**
   * On a `sign_in` route, where a credential is optional: this one needs a dashboard session token
   * (GET /api/v1/auth/me; its handler checks it), and the document's security says so.
   */
  session?: 'required';
}

/**
 * What a route declares of its access: the role and session its handler checks. Its surface and
 * scopes are the manifest's alone, written once there; a route restating them does not compile.
 */
export interface RouteAccess {
  role?: Access['role'];
  session?: Access['session'];
  surface?: never;
  scopes?: never;
}

/**
 * One route, as `functions/<name>/routes.ts` declares it with `defineRoute` (shared/http/route.ts):
 * the handler is served from it (`register`), and the OpenAPI document and the fuzz read it, with the
 * SAME zod schemas. The generator adds security and required scopes (from the manifest's rule for the
 * path) and the standard 401/403/422 errors, so a declaration only states what is particular to the route.
 */
export interface RouteDef {
  /**
   * The name an SDK gives the operation: a camelCase verb phrase (`listTickets`, `rotateApiKey`),
   * with `V1`/`V2` where a path exists in both versions. Unique across both documents.
   */
  operationId?: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style: `/api/v1/tickets/{ticket_id}` (the Hono route is `/api/v1/tickets/:ticket_id`) */
  path: string;
  /** the least dashboard role, or a required session: the rest of who may call it is the manifest's */
  access?: RouteAccess;
  summary: string;
  /** what it does and its notable refusals (the document adds what it emits and who may call it) */
  description?: string;
  /** the webhook events a successful call sends */
  emits?: readonly EventType[];
  tags: string[];
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  /**
   * Why the document leaves this route out (it is served all the same): a redirect of an address
   * people guess is no operation a client calls, and lint rules rightly refuse its path or its
   * lack of a 2xx.
   */
  undocumented?: string;
  /** an older address of another route, served for the clients that call it: the reference marks it */
  deprecated?: true;
  /**
   * A body that is a file, not JSON (uploads): its media types, what it is, and an example file the
   * server accepts (the fuzz test sends it as the body, under the first media type).
   */
  rawBody?: { mediaTypes: readonly string[]; description: string; example: string };
  /** a request body that the server accepts as is (the fuzz test sends it) */
  bodyExample?: unknown;
  /**
   * parameter name -> description, where the route's params/query schema describes it not at all, or
   * not truly for this route (it wins over the schema's). The document has no other source of texts.
   */
  paramText?: Record<string, string>;
  /** success (and route-specific error) responses by status */
  responses: Record<
    number,
    {
      description: string;
      schema?: ZodType;
      example?: unknown;
      /** a body that is not JSON (a page, a file): its media types */
      mediaTypes?: readonly string[];
    }
  >;
}

/** A route with its access complete, as functions/registry.ts hands it to the OpenAPI document. */
export type RouteWithAccess = Omit<RouteDef, 'access'> & { access: Access };

/**
 * Reference prose for a named component schema: what it is, what each field means, and an example
 * (which the document test validates against the schema). Kept in functions/<name>/routes.ts as `components`,
 * which no handler reads: the bundler drops it from every Worker but the docs one.
 */
export interface ComponentDoc {
  description?: string;
  fields?: Record<string, string>;
  example?: unknown;
}

/**
 * The named component schemas of a function: name (PascalCase; `XList` for a page envelope) ->
 * the zod schema its handlers use. Operations whose schema (or a part of it) is one of these
 * `$ref` `#/components/schemas/<name>` instead of repeating it, so generated clients get named types.
 * `output` names response schemas, `input` request bodies.
 */
export interface ComponentSet {
  output?: Record<string, ZodType>;
  input?: Record<string, ZodType>;
  docs?: Record<string, ComponentDoc>;
}

export const defineComponents = (set: ComponentSet): ComponentSet => set;

/** A fragment of the OpenAPI document (an operation, a response, a schema). */
export type OpenApiJson = Record<string, unknown>;

/** What the document knows of an operation when it asks a shared layer whether it applies. */
export interface OperationTraits {
  route: RouteWithAccess;
  surface: Surface;
  method: RouteDef['method'];
  /** the Hono path (`/api/v1/tickets/:ticket_id`), as the middleware sees it */
  honoPath: string;
  hasPathIds: boolean;
  hasInput: boolean;
}

/**
 * What a middleware adds to the operations it runs on, declared beside the middleware (so its rule is
 * written once) and handed to the document builder (functions/docs/document.ts): the request headers
 * it reads, the refusals it may answer, and the response headers it sets.
 */
export interface MiddlewareDoc {
  /** whether the middleware runs for this operation */
  appliesTo: (t: OperationTraits) => boolean;
  /** request parameters it reads (a header) */
  parameters?: readonly OpenApiJson[];
  /**
   * Refusals it may answer, by status: a description, the exact `detail` and a summary for the
   * example. Where the operation already has a response of that status, the two are combined
   * (both bodies, both examples, this one's under `name`).
   */
  refusals?: Record<
    string,
    { description: string; detail: string; name: string; summary: string; headers?: OpenApiJson }
  >;
  /** response headers it sets (component name -> header object), and on which answers */
  responseHeaders?: {
    components: Record<string, OpenApiJson>;
    /** whether an answer of `status` carries them (set before or after the layers that answer it) */
    carriedBy: (status: string, t: OperationTraits) => boolean;
  };
}
