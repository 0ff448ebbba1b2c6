// The console's API client: the project's typed client (clients/typescript: openapi-fetch over the
// types generated from the OpenAPI document), sending every call through the dashboard session.
import { createSupportClient, SupportApiError } from '../../../clients/typescript';
import { describeError, SESSION_ENDED } from './errors';
import { sessionFetch } from './session';

export const api = createSupportClient({ baseUrl: location.origin, fetch: sessionFetch });

/** An API refusal: the readable message, and the status for the callers that act on it (404). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Awaits a client call: its data, or an ApiError whose message is the API's detail, readable. */
export async function must<T>(call: Promise<{ data?: T }>): Promise<T> {
  try {
    return (await call).data as T;
  } catch (e) {
    if (!(e instanceof SupportApiError)) throw e;
    // a 401 here means the refresh failed too: the session-ended dialog is already open
    if (e.status === 401) throw new ApiError(SESSION_ENDED, 401);
    throw new ApiError(describeError(e.body, e.status), e.status);
  }
}
