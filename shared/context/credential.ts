import type { HeldShare, RateDecision } from './rate-limiter';
import type { Role } from './roles';

/** Who is calling, as established by the gate. Handlers take the tenant from here, never from the body. */
export type Credential =
  | { kind: 'anonymous' }
  | { kind: 'internal' }
  | {
      kind: 'api_key';
      tenantId: string;
      keyId: string;
      scopes: ReadonlySet<string>;
      /** this request's rate-limit decision, when the key's verification counted it (shared cache) */
      rate?: RateDecision;
      /**
       * the tenant's database share, when the key's verification took it in the same round trip;
       * a promise of it on a speculative admission (the check's, undefined if it took none)
       */
      share?: HeldShare | Promise<HeldShare | undefined>;
    }
  | { kind: 'dashboard'; tenantId: string; userId: string; role: Role; sessionId?: string }
  | { kind: 'end_user'; tenantId: string; endUserId: string; email: string | null };
