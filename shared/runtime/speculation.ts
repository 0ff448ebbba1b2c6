// One round trip for a warm keyed read. The gate admits a read provisionally when the isolate already
// knows the key's tenant (shared/auth/key-verify.ts, ProvisionalKey); the request then runs on that
// admission while the key's own check (Redis: validity, revocation, rate limit) is in flight, and
// the front door answers from the check:
//
// - refused (401, or the check failing): the refusal, as a cold request gets it; the run's answer
//   is dropped, its rows were never handed to it, its deferred tasks never run;
// - confirmed, same caller, counted and allowed: the run's answer, with the confirmed rate headers;
// - anything else (another tenant or scopes, a 429, a count not made, a write attempted): the run is
//   dropped and the request goes through the router again on the confirmed admission, which
//   answers it exactly as the sequential path does (the 429 included) without counting it twice.
//
// While the run is provisional its database handle runs statements that only read, and holds every
// result until the check has agreed; any other statement is refused before it is sent; tasks it
// defers wait for the front door's verdict and are dropped unless its answer is the one sent.
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
import type { Services } from '../context/services';
import type { Db } from '../db/schema';
import { Detail, unauthorized } from '../http/errors';

/** A statement that only reads: a SELECT whose common table expressions are SELECTs too. */
function onlyReads(node: RootOperationNode): boolean {
  if (!SelectQueryNode.is(node)) return false;
  return (node.with?.expressions ?? []).every((cte) => SelectQueryNode.is(cte.expression));
}

/** The provisional run's database handle: reads go out at once, their rows wait for the check. */
class HoldUntilConfirmed implements KyselyPlugin {
  constructor(
    private readonly confirmed: Promise<boolean>,
    private readonly state: { decided: boolean; wrote: boolean },
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (!this.state.decided && !onlyReads(args.node)) {
      // a write (or raw SQL, which may write) is never sent on a key not yet confirmed: the run is
      // dropped and the request runs again, on the confirmed admission
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

/** What the front door does with a provisional run once the check has answered. */
export interface Hold {
  /** the run tried to write: it must run again on the confirmed admission */
  readonly wrote: boolean;
  /** its answer is sent: its deferred tasks run */
  keep(): void;
  /** its answer is dropped: its deferred tasks never run; the services are the request's own again */
  drop(): void;
}

/**
 * Puts a request's services on hold for a provisional run: `db` holds results until `confirmed` is
 * true (false: every result refused), `defer` holds tasks until keep()/drop().
 */
export function holdServices(services: Services, confirmed: Promise<boolean>): Hold {
  const { db, defer } = services;
  const state = { decided: false, wrote: false };
  let decide!: (keep: boolean) => void;
  const kept = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  services.db = db.withPlugin(new HoldUntilConfirmed(confirmed, state)) as Db;
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
 * May the provisional run's answer stand for the confirmed admission? Only for the same key, tenant
 * and scopes, no scope refusal, and a count made in the check's round trip that allowed it.
 */
export function confirms(provisional: Admission, confirmed: Admission): boolean {
  const p = provisional.auth as ApiKeyAuth;
  const c = confirmed.auth;
  return (
    c.kind === 'api_key' &&
    confirmed.scopeRefusal === undefined &&
    c.keyId === p.keyId &&
    c.tenantId === p.tenantId &&
    sameScopes(c.scopes, p.scopes) &&
    c.rate?.allowed === true
  );
}
