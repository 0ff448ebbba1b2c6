/**
 * Typed client of the Support Platform API: openapi-fetch over the types openapi-typescript
 * generates from /api/v1/openapi.json (`npm run client:generate`), plus what every integration
 * needs: API-key or session auth, retries on 429/503 honouring Retry-After, an Idempotency-Key on
 * every POST, typed errors, an async iterator over every list, and the webhook signature verifier.
 *
 * Written against paths only (`paths['/api/v1/tickets']['get']`), never against generated type
 * names, so named component schemas in the document change nothing here.
 */
import createClient, {
  type Client,
  type ClientOptions,
  type ClientPathsWithMethod,
  type MaybeOptionalInit,
  type MethodResponse,
  type Middleware,
} from 'openapi-fetch';
import { SupportApiError, SupportNetworkError } from './errors.js';
import { LIST_ENDPOINTS } from './generated/lists.js';
import type { components, paths } from './generated/openapi.js';
import type { ListShape } from './list-shape.js';
import { type RetryOptions, retryingFetch } from './retry.js';

export { SupportApiError, SupportNetworkError, type ValidationIssue } from './errors.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export { type RetryOptions, retryAfterMs } from './retry.js';
export {
  type VerifyWebhookInput,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookEvent,
  type WebhookEventFrom,
  type WebhookEventOf,
  type WebhookEventType,
} from './webhook-events.js';

type Credential = string | (() => string | Promise<string>);

export interface SupportClientOptions {
  /** e.g. `http://127.0.0.1:8787` (no trailing `/api/v1`: paths are absolute) */
  baseUrl: string;
  /** a tenant API key, sent as `X-API-Key` */
  apiKey?: string | undefined;
  /** a dashboard session token (or a function returning the current one), sent as `Authorization: Bearer` */
  sessionToken?: Credential | undefined;
  /** retries on 429 and 503; `false` never retries */
  retry?: RetryOptions | false | undefined;
  /** an `Idempotency-Key` on every POST that has none (default true) */
  idempotency?: boolean | undefined;
  /** headers sent on every request */
  headers?: Record<string, string> | undefined;
  /** custom fetch (default: globalThis.fetch) */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
}

type GetPath = ClientPathsWithMethod<Client<paths>, 'get'>;
type Lists = typeof LIST_ENDPOINTS;
/** Every GET path that returns a list (from the document: clients/typescript/generate.ts). */
export type ListPath = keyof Lists & GetPath;
/** One row of the list at `P`, e.g. `ListItem<'/api/v1/tickets'>` is a ticket. */
export type ListItem<P extends ListPath> = MethodResponse<Client<paths>, 'get', P>[Lists[P]['items'] &
  keyof MethodResponse<Client<paths>, 'get', P>] extends readonly (infer T)[] | null | undefined
  ? T
  : never;

/** One search hit: narrow it by `hit.type` (`ticket`, `conversation`, `contact`, `company`) to type `hit.record`. */
export type SearchHit = components['schemas']['SearchResult']['hits'][number];
export type SearchRecordType = SearchHit['type'];
export interface SearchOptions {
  /** the record types to search (a session; default all four). With an API key only tickets are searched. */
  types?: SearchRecordType[] | undefined;
  sort?: 'relevance' | 'created_at' | 'updated_at' | undefined;
  limit?: number | undefined;
  /** the previous page's `next_cursor` */
  cursor?: string | undefined;
}
export interface SearchPage {
  hits: SearchHit[];
  next_cursor: string | null;
}

export type SupportClient = Client<paths> & {
  /**
   * One page of search hits for `query` (the query language: docs/search.md). With a session (or a custom fetch that signs in) it
   * asks GET /api/v2/search (every type, or `types`); with an API key GET /api/v1/tickets/search.
   * A malformed query throws SupportApiError 422 whose detail names what is wrong and where.
   */
  search(query: string, options?: SearchOptions): Promise<SearchPage>;
  /**
   * Every row of a list, page after page (`limit` sets the page size, `offset` where to start;
   * other filters are kept on every page). A list that answers `next_cursor` is walked by cursor
   * (each page the same cost at any depth, none skipped or repeated when rows are added meanwhile);
   * one without it by offset. Lists without paging are fetched once.
   */
  paginate<P extends ListPath>(
    path: P,
    init?: MaybeOptionalInit<paths[P], 'get'>,
  ): AsyncGenerator<ListItem<P>>;
  /**
   * Uploads a file as the raw request body (a Blob or a ReadableStream of bytes, never read into
   * memory here), e.g. `upload(\`/api/v1/tickets/${id}/attachments\`, blob, { filename: 'log.txt' })`.
   * Not retried (a stream cannot be sent twice) and sent without an Idempotency-Key, which uploads
   * do not read. Throws SupportApiError on a refusal (413 over the size or storage cap, 422 ...).
   */
  upload(
    path: UploadPath,
    file: Blob | ReadableStream<Uint8Array>,
    options: UploadOptions,
  ): Promise<UploadedFile>;
};

/** Where a file is uploaded: a ticket's or a conversation's attachments (the ids filled in). */
export type UploadPath =
  | `/api/v1/tickets/${string}/attachments`
  | `/api/v1/conversations/${string}/attachments`;
/** What an upload answers: the stored file with a signed `download_url`. */
export type UploadedFile = components['schemas']['Attachment'];

export interface UploadOptions {
  /** the name it is stored under (1-255 characters, no `/`, `\\` or control characters) */
  filename: string;
  /** its media type; default the Blob's own type, else `application/octet-stream` */
  contentType?: string | undefined;
  /** a stream's length in bytes, when known: sent as Content-Length so the server can stream it straight to storage */
  size?: number | undefined;
}

/** Turns every non-2xx answer into a SupportApiError (so a returned call always succeeded). */
const throwOnError: Middleware = {
  async onResponse({ request, response }) {
    if (response.ok) return undefined;
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    throw new SupportApiError({
      status: response.status,
      body,
      requestId: response.headers.get('X-Request-Id') ?? request.headers.get('X-Request-Id') ?? undefined,
      method: request.method,
      url: request.url,
    });
  },
};

function requestHeaders(options: SupportClientOptions): Middleware {
  const idempotency = options.idempotency ?? true;
  return {
    async onRequest({ request }) {
      // one id per call, kept across retries: the server echoes it and logs it
      if (!request.headers.has('X-Request-Id')) request.headers.set('X-Request-Id', crypto.randomUUID());
      if (idempotency && request.method === 'POST' && !request.headers.has('Idempotency-Key'))
        request.headers.set('Idempotency-Key', crypto.randomUUID());
      if (options.apiKey && !request.headers.has('X-API-Key'))
        request.headers.set('X-API-Key', options.apiKey);
      const session = options.sessionToken;
      if (session !== undefined && !request.headers.has('Authorization')) {
        const token = typeof session === 'function' ? await session() : session;
        request.headers.set('Authorization', `Bearer ${token}`);
      }
      return request;
    },
  };
}

/** fetch whose failure to get any answer is a SupportNetworkError, not the platform's bare TypeError. */
const reportingNetworkErrors =
  (fetchImpl: (request: Request) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    try {
      return await fetchImpl(request);
    } catch (cause) {
      if (cause instanceof TypeError)
        throw new SupportNetworkError({ method: request.method, url: request.url, cause });
      throw cause;
    }
  };

export function createSupportClient(options: SupportClientOptions): SupportClient {
  const baseFetch = reportingNetworkErrors(
    options.fetch ?? ((request: Request) => globalThis.fetch(request)),
  );
  const clientOptions: ClientOptions = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry),
    ...(options.headers && { headers: options.headers }),
  };
  const client = createClient<paths>(clientOptions);
  client.use(requestHeaders(options), throwOnError);

  async function* paginate(path: ListPath, init?: { params?: { query?: Record<string, unknown> } }) {
    const shape = LIST_ENDPOINTS[path] as ListShape;
    const query: Record<string, unknown> = { ...init?.params?.query };
    for (;;) {
      const get = client.GET as (p: string, i: unknown) => Promise<{ data?: Record<string, unknown> }>;
      const { data } = await get(path, { ...init, params: { ...init?.params, query } });
      const rows = (data?.[shape.items] ?? []) as unknown[];
      yield* rows;
      if (rows.length === 0) return;
      if (shape.paging === 'offset') {
        const next = Number(data?.offset ?? 0) + rows.length;
        if (next >= Number(data?.total ?? 0)) return;
        query.offset = next;
      } else if (shape.paging === 'cursor' && data?.next_cursor) {
        // the cursor carries the position: a start offset applies to the first page only
        query.cursor = data.next_cursor;
        delete query.offset;
      } else {
        return;
      }
    }
  }

  async function search(query: string, opts: SearchOptions = {}): Promise<SearchPage> {
    // only the options given: under exactOptionalPropertyTypes an absent option is no `undefined`
    const page = {
      ...(opts.sort ? { sort: opts.sort } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      ...(opts.cursor ? { cursor: opts.cursor } : {}),
    };
    if (options.apiKey && options.sessionToken === undefined) {
      if (opts.types?.some((t) => t !== 'ticket'))
        throw new TypeError('search: an API key searches tickets only (types: ["ticket"])');
      const { data } = await client.GET('/api/v1/tickets/search', { params: { query: { query, ...page } } });
      return data as SearchPage;
    }
    // the types were checked one by one (opts.types); joined, they are a list of those
    const types = opts.types?.join(',') as `ticket,${string}` | undefined;
    const { data } = await client.GET('/api/v2/search', {
      params: { query: { query, ...page, ...(types ? { types } : {}) } },
    });
    return data as SearchPage;
  }

  const headersOf = requestHeaders({ ...options, idempotency: false });
  async function upload(path: UploadPath, file: Blob | ReadableStream<Uint8Array>, o: UploadOptions) {
    const url = `${clientOptions.baseUrl}${path}?filename=${encodeURIComponent(o.filename)}`;
    const blob = file instanceof Blob ? file : null;
    const headers = new Headers(options.headers);
    headers.set('Content-Type', o.contentType ?? (blob?.type || 'application/octet-stream'));
    if (!blob && o.size !== undefined) headers.set('Content-Length', String(o.size));
    const init = { method: 'POST', headers, body: file, duplex: 'half' } as RequestInit;
    const request = (await headersOf.onRequest!({ request: new Request(url, init) } as never)) as Request;
    const response = await baseFetch(request);
    await throwOnError.onResponse!({ request, response } as never);
    return (await response.json()) as UploadedFile;
  }

  return Object.assign(client, { paginate, search, upload }) as SupportClient;
}
