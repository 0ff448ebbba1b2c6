/**
 * The credential-free auth POSTs (dashboard sign-in `/api/v1/auth/*`, end-user `/api/v1/app/auth/*`)
 * take only `Content-Type: application/json`. A foreign page can send `text/plain`,
 * `application/x-www-form-urlencoded` or `multipart/form-data` without asking (a "simple" request,
 * `fetch(…, {mode: 'no-cors'})` or a form), and the API reads any body as JSON: without this, any
 * site could drive sign-in attempts, and so the throttle, from its visitors' browsers. JSON needs a
 * CORS preflight, which these paths answer only for the allowed origins. A POST without a body
 * (logout with its Authorization header) carries nothing to refuse.
 */
import type { HonoRequest, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context/app-env';
import { errorResponse } from '../http/error-body';
import { ApiError, Detail } from '../http/errors';

/** `application/json`, with or without parameters (`; charset=utf-8`), in any case. */
const isJson = (contentType: string | undefined) =>
  contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/**
 * Whether the request carries body bytes. Its headers tell when present; without them (a Request
 * made in-process, a client that sent neither Content-Length nor Transfer-Encoding) the body is
 * read, and Hono keeps it for the route's own read.
 */
async function hasBody(req: HonoRequest): Promise<boolean> {
  const length = req.header('content-length');
  if (length !== undefined && req.header('transfer-encoding') === undefined) return length.trim() !== '0';
  if (req.raw.body === null) return false;
  return (await req.arrayBuffer()).byteLength > 0;
}

export const jsonOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === 'POST') {
    const type = c.req.header('content-type');
    // a stated type must be JSON; without one, only an empty body passes (a Blob sent no-cors has none)
    if (type !== undefined ? !isJson(type) : await hasBody(c.req))
      throw new ApiError(415, Detail.jsonRequired);
  }
  await next();
};

/** The 415 as each of those routes documents it. */
export const jsonOnlyRefusal = errorResponse(
  'A body that is not `application/json` (a foreign page could send it without a preflight)',
  Detail.jsonRequired,
);
