/** One issue of a 422 validation error (`{"detail": [{loc, msg, type}]}`). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * Every non-2xx answer of the API, thrown by the client: the HTTP status, the `detail` of the
 * spec's error body (a string, or the list of issues of a 422) and the request id to quote to
 * support (`X-Request-Id`: the server's, else the one the client sent).
 */
export class SupportApiError extends Error {
  override readonly name = 'SupportApiError';
  readonly status: number;
  readonly detail: string | ValidationIssue[];
  readonly requestId: string | undefined;
  /** the parsed body (or its text when it was not JSON) */
  readonly body: unknown;
  readonly method: string;
  readonly url: string;

  constructor(init: {
    status: number;
    body: unknown;
    requestId: string | undefined;
    method: string;
    url: string;
  }) {
    const detail = detailOf(init.body, init.status);
    const text =
      typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    super(
      `${init.method} ${new URL(init.url).pathname} -> ${init.status}: ${text}${init.requestId ? ` (request ${init.requestId})` : ''}`,
    );
    this.status = init.status;
    this.detail = detail;
    this.requestId = init.requestId;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
  }

  /** the issues of a 422 validation error; empty for any other error */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

/**
 * No answer came at all (the server down or unreachable, DNS, TLS, the connection cut): what
 * `fetch` reports as a bare `TypeError` ("fetch failed", "Failed to fetch"), told apart from an
 * API refusal. `cause` is the underlying error.
 */
export class SupportNetworkError extends Error {
  override readonly name = 'SupportNetworkError';
  readonly method: string;
  readonly url: string;

  constructor(init: { method: string; url: string; cause: unknown }) {
    super(
      `${init.method} ${new URL(init.url).pathname}: no answer from the server (${String((init.cause as Error)?.message ?? init.cause)})`,
      {
        cause: init.cause,
      },
    );
    this.method = init.method;
    this.url = init.url;
  }
}

function detailOf(body: unknown, status: number): string | ValidationIssue[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string' || Array.isArray(detail)) return detail as string | ValidationIssue[];
  if (typeof body === 'string' && body.length > 0) return body;
  return `HTTP ${status}`;
}
