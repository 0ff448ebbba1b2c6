import type { ExecutionContext } from 'hono';
import type { Admission } from '../auth/gate';
import { rateLimitHeaders } from '../ratelimit/middleware';
import type { Entry } from './front-door';
import { confirms } from './speculation';

type Route = (
  req: Request,
  env: unknown,
  ctx: ExecutionContext | undefined,
  entry: Entry,
) => Response | Promise<Response>;

/**
 * How the root answers a read admitted provisionally (./speculation.ts): it runs while its key's
 * check is in flight, and is answered from the check. Where the runtime cannot hold a run, it
 * waits for the check. `route` runs the router on an entry; `routeEntry` is the root's ordinary way.
 */
export function provisionalRouter(deps: {
  route: Route;
  answerAtDoor: (req: Request, entry: Entry) => Response;
  routeEntry: Route;
}) {
  const { route, answerAtDoor, routeEntry } = deps;
  return async function routeProvisional(
    req: Request,
    env: unknown,
    ctx: ExecutionContext | undefined,
    entry: Entry,
    confirmed: Promise<Admission>,
  ): Promise<Response> {
    const provisional = entry.admission as Admission;
    const verdict = confirmed.then(
      (admission) => ({ admission, error: undefined }),
      (error: unknown) => ({ admission: null, error }),
    );
    const decided = (v: Awaited<typeof verdict>): Entry => ({ ...entry, ...v });
    const hold = entry.hold?.(
      verdict.then((v) => v.admission !== null && confirms(provisional, v.admission)),
    );
    if (!hold) return routeEntry(req, env, ctx, decided(await verdict));
    const run: Entry = { ...entry, provisional: {} };
    const [v, res] = await Promise.all([verdict, route(req, env, ctx, run)]);
    if (v.admission === null) {
      hold.drop();
      return answerAtDoor(req, decided(v));
    }
    const rate = v.admission.auth.kind === 'api_key' ? v.admission.auth.rate : undefined;
    if (!hold.wrote && rate && confirms(provisional, v.admission)) {
      hold.keep();
      for (const [name, value] of Object.entries(rateLimitHeaders(rate))) res.headers.set(name, value);
      run.provisional?.accessLine?.();
      entry.release();
      return res;
    }
    // not the caller the run was made for (or a 429, or a write tried): the ordinary path, on the
    // confirmed admission, counted already
    hold.drop();
    return routeEntry(req, env, ctx, decided(v));
  };
}
