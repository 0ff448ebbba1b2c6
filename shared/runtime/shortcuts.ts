// The chain's two optional middleware, between the gate (./gate.ts) and `admitted()`. Neither
// changes an answer: test/integration/chain-shortcuts.test.ts sends the same requests through a
// chain with and without them. What they save is time.
//
// - earlyRefusal: a refused request off the browser surfaces is answered at once, from the verdict,
//   with the answer onError would give; no exception is built and unwound for the commonest refusal
//   (a key whose scopes do not cover the route).
// - speculation: a read with a key this isolate verified before (shared/auth/key-verify.ts,
//   SpeculativeKey) runs while the key's check (Redis: validity, revocation, rate limit) is in
//   flight: one round trip instead of two. The run's database handle sends only statements that
//   read, and hands their rows to the route only once the check has agreed; tasks it defers wait
//   for the outcome. Then:
//   - the check refuses (401, or it fails): the run is dropped, and the request is answered as a
//     cold one is;
//   - the check confirms the same caller, counted and allowed: the run's answer, with the
//     confirmed rate headers;
//   - anything else (another tenant or scopes, a 429, a write attempted): the run is dropped and the
//     request is dispatched once more on the check's verdict, which answers it exactly as the
//     sequential path does (the 429 included) without counting it twice.
import type { Context, MiddlewareHandler } from 'hono';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  SelectQueryNode,
  type UnknownRow,
} from 'kysely';
import type { Admission } from '../auth/gate';
import type { AppEnv } from '../context/app-env';
import type { Services } from '../context/services';
import { derivedDb } from '../db/derived';
import type { Db } from '../db/schema';
import { Detail, errorAnswerOf, unauthorized } from '../http/errors';
import { jsonAnswer } from '../http/response-headers';
import { rateLimitHeaders } from '../ratelimit/middleware';
import { forgetCredential, type Speculation, setVerdict, type Verdict, verdictOf } from './gate';

/** A refused verdict off the browser surfaces, answered as onError (handleError) would answer it. */
export function earlyRefusal(): MiddlewareHandler<AppEnv> {
  return async function refuseEarly(c, next) {
    const { admission, browser, error } = verdictOf(c);
    if (browser || (admission !== null && admission.scopeRefusal === undefined)) return next();
    if (admission !== null) return jsonAnswer(c, { detail: admission.scopeRefusal }, 403);
    const services = c.get('services') as Services | undefined;
    const answer = errorAnswerOf(error, {
      requestId: c.get('requestId'),
      path: c.req.path,
      logger: services?.logger,
    });
    return jsonAnswer(c, answer.body, answer.status, answer.headers);
  };
}

/** A statement that only reads: a SELECT whose common table expressions are SELECTs too. */
function onlyReads(node: RootOperationNode): boolean {
  if (!SelectQueryNode.is(node)) return false;
  return (node.with?.expressions ?? []).every((cte) => SelectQueryNode.is(cte.expression));
}

/** The speculative run's database handle: reads go out at once, their rows wait for the check. */
class SpeculativeReads implements KyselyPlugin {
  constructor(
    private readonly confirmed: Promise<boolean>,
    private readonly state: { decided: boolean; wrote: boolean },
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (!this.state.decided && !onlyReads(args.node)) {
      // a write (or raw SQL, which may write) is never sent on a key not yet confirmed: the run is
      // dropped and the request runs again, on the check's verdict
      this.state.wrote = true;
      throw unauthorized(Detail.invalidApiKey);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (!(await this.confirmed)) throw unauthorized(Detail.invalidApiKey);
    return args.result;
  }
}

/**
 * Runs a request's services speculatively: `db` hands out rows only once `confirmed` is true (false:
 * every result refused), `defer` holds tasks until keep()/drop().
 */
export function speculativeServices(services: Services, confirmed: Promise<boolean>): Speculation {
  const { db, defer } = services;
  const state = { decided: false, wrote: false };
  let decide!: (keep: boolean) => void;
  const kept = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  services.db = derivedDb(db, db.withPlugin(new SpeculativeReads(confirmed, state)) as Db);
  services.defer = (task) => defer(() => kept.then((keep) => (keep ? task() : undefined)));
  const decideOnce = (keep: boolean) => {
    if (state.decided) return;
    state.decided = true;
    decide(keep);
  };
  return {
    get wrote() {
      return state.wrote;
    },
    keep: () => decideOnce(true),
    drop() {
      decideOnce(false);
      services.db = db;
      services.defer = defer;
    },
  };
}

type ApiKeyAuth = Extract<Admission['auth'], { kind: 'api_key' }>;

const sameScopes = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && [...a].every((s) => b.has(s));

/**
 * May the speculative run's answer stand for the check's admission? Only for the same key, tenant
 * and scopes, no scope refusal, and a count made in the check's round trip that allowed it.
 */
export function confirms(speculative: Admission, checked: Admission): boolean {
  const p = speculative.auth as ApiKeyAuth;
  const c = checked.auth;
  return (
    c.kind === 'api_key' &&
    checked.scopeRefusal === undefined &&
    c.keyId === p.keyId &&
    c.tenantId === p.tenantId &&
    sameScopes(c.scopes, p.scopes) &&
    c.rate?.allowed === true
  );
}

/** Dispatches the request through the whole chain again, with its verdict already reached. */
export type Redispatch = (c: Context<AppEnv>, verdict: Verdict) => Response | Promise<Response>;

/**
 * The speculation (see the top of this file). `redispatch` runs the chain once more on the
 * check's verdict, for a run that may not stand.
 */
export function speculation(redispatch: Redispatch): MiddlewareHandler<AppEnv> {
  return async function speculate(c, next) {
    const verdict = verdictOf(c);
    const speculative = verdict.admission;
    const check = speculative?.check;
    if (!check || !verdict.speculate) return next();
    const checked = check.then(
      (admission) => ({ admission, error: undefined as unknown }),
      (error: unknown) => ({ admission: null, error }),
    );
    const run = verdict.speculate(
      checked.then((v) => v.admission !== null && confirms(speculative, v.admission)),
    );
    // the run's admission: `admitted()` lets it through without waiting
    setVerdict(c, { ...verdict, admission: { auth: speculative.auth } });
    const [outcome] = await Promise.all([checked, next()]);
    const { admission } = outcome;
    const rate = admission?.auth.kind === 'api_key' ? admission.auth.rate : undefined;
    if (admission && !run.wrote && rate && confirms(speculative, admission)) {
      run.keep();
      c.set('auth', admission.auth);
      const { headers } = c.res;
      for (const [name, value] of Object.entries(rateLimitHeaders(rate))) headers.set(name, value);
      return;
    }
    run.drop();
    if (admission) c.set('auth', admission.auth);
    else forgetCredential(c);
    const res = await redispatch(c, { ...verdict, ...outcome });
    // (cleared first: Hono copies the headers of the answer it replaces into the new one)
    c.res = undefined;
    c.res = res;
  };
}
