// The console's API client: the project's typed client (clients/typescript: openapi-fetch over the
// types generated from the OpenAPI document), sending every call through the dashboard session.
import { createSupportClient, SupportApiError } from '../../../clients/typescript';
import { describeError } from './errors';
import { sessionFetch } from './session';

export const api = createSupportClient({ baseUrl: location.origin, fetch: sessionFetch });

/** Awaits a client call: its data, or an Error whose message is the API's detail (shown as is). */
export async function must<T>(call: Promise<{ data?: T }>): Promise<T> {
  try {
    return (await call).data as T;
  } catch (e) {
    if (e instanceof SupportApiError) throw new Error(describeError(e.body, e.status));
    throw e;
  }
}
