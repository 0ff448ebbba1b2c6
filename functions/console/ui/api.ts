// The console's API client: the project's typed client (clients/typescript: openapi-fetch over the
// types generated from the OpenAPI document), sending every call through the dashboard session.
import { createSupportClient, SupportApiError, SupportNetworkError } from '../../../clients/typescript/index';
import { describeError, NETWORK_DOWN, SESSION_ENDED } from './errors';
import { type Identity, sessionFetch } from './session';

export type { components } from '../../../clients/typescript/index';

export const api = createSupportClient({ baseUrl: location.origin, fetch: sessionFetch });

/**
 * An API refusal: the readable message, the status for the callers that act on it (404), and the
 * request id the server gave it (X-Request-Id), to quote to support. Status 0: no answer came.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** Awaits a client call: its data, or an ApiError whose message is the API's detail, readable. */
export async function must<T>(call: Promise<{ data?: T }>): Promise<T> {
  try {
    return (await call).data as T;
  } catch (e) {
    // fetch itself failed (offline, server down): its own words are "Failed to fetch"
    if (e instanceof SupportNetworkError || e instanceof TypeError) throw new ApiError(NETWORK_DOWN, 0);
    if (!(e instanceof SupportApiError)) throw e;
    // a 401 here means the refresh failed too: the session-ended dialog is already open
    if (e.status === 401) throw new ApiError(SESSION_ENDED, 401);
    throw new ApiError(describeError(e.body, e.status), e.status, e.requestId);
  }
}

const fetchMe = () => must(api.GET('/api/v1/auth/me'));
let me: { key: string; answer: ReturnType<typeof fetchMe> } | null = null;

/** GET /api/v1/auth/me once per signed-in identity: the sidebar and the usage months both read it. */
export function loadMe(who: Identity): ReturnType<typeof fetchMe> {
  const key = `${who.tenantId}/${who.userId}`;
  if (me?.key !== key) {
    const answer = fetchMe();
    // a failed answer is not kept: the next caller asks again
    answer.catch(() => {
      if (me?.answer === answer) me = null;
    });
    me = { key, answer };
  }
  return me.answer;
}

/**
 * Tenant users have `tus_` ids. A token from `npm run token` names any subject (`user_local_admin`):
 * such an actor is no member, so it is shown as a CLI token and never looked up (a 404 per page).
 */
export const isMemberId = (id: string) => id.startsWith('tus_');
