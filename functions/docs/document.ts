import { IDEMPOTENCY_DOC } from '../../shared/http/idempotency';
import { type Audience, buildOpenApiDocument, type OpenApiDocument } from '../../shared/http/openapi-doc';
import { RATE_LIMIT_DOC } from '../../shared/ratelimit/middleware';
import { DOC_SOURCES } from '../registry';
import { REFERENCE_GUIDE } from './guide';

/**
 * The two documents of the one route registry, each built once per isolate/process on first request
 * (the zod -> JSON Schema pass takes a few ms): `public` for /api/v1/openapi.json and /docs,
 * `internal` (internal-token and QStash routes) for /api/internal/openapi.json.
 */
const built: Partial<Record<Audience, OpenApiDocument>> = {};
export const openApiDocument = (audience: Audience = 'public'): OpenApiDocument => {
  built[audience] ??= buildOpenApiDocument(DOC_SOURCES, {
    audience,
    guide: REFERENCE_GUIDE,
    // the layers in front of every route, in the order they run (shared/runtime/chain.ts)
    middleware: [RATE_LIMIT_DOC, IDEMPOTENCY_DOC],
  });
  return built[audience];
};
