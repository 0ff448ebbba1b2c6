import type { HeldShare, KeyRecord, KeyRecordCache, RateDecision, ShareClaim } from '../context/rate-limiter';
import type { TenantPlan } from '../db/schema';
import type { RedisClient as Redis } from '../redis/client';
import { SHARE_PREFIX, SHARE_TAKE_LUA, shareMember } from './db-share';
import { type Clock, decide, type RateRule, ruleOf, windowStart } from './limiter';
import { limitFor, PLANS, type RateKind, rateKindOf } from './limits';

/**
 * The verified-key cache in Redis, read in the same script that counts the rate limit: a warm keyed
 * request is one Redis round trip for both. The entry `kc:<key hash>` is one string,
 * `<tenant>\t<plan>\t<expires-at ms or empty>\t<record as JSON>`; the script needs only the first
 * three fields to count, the JSON goes back to the caller. An unusable hash (unknown, revoked,
 * rotated away, deleted) is stored with an empty tenant: the script then counts nothing and the gate
 * answers 401. The counters are the limiter's own (`rl:t:<tenant>:<kind>:<window>:<start>`), so a
 * request counted here and one counted by `check` share one budget. The script derives those counter
 * keys from the entry (the tenant is not known before it is read): Upstash runs scripts under its
 * global lock by default, which allows keys not passed in KEYS (its `allow-key-locking` flag would
 * not); single-node Redis allows them too.
 *
 * With a share claim (ARGV[5] the share set's prefix, else empty), a request every window admits
 * also takes its tenant's database share (the set `<prefix><tenant>`, a member `<id>|<cost>` scored
 * with its lease's end) by db-share.ts's own `take` (SHARE_TAKE_LUA), so a keyed request's rate
 * limit and share cost one round trip, not two.
 *
 * KEYS[1] the entry; ARGV: now, prefix, kind, n (windows), the share's prefix (or ''), member, cost,
 * share and lease (ms), n window suffixes `:<ms>:<start>`, n TTLs, then per plan its name and n
 * limits. Reply: {0} not cached; {1, entry} found, nothing counted; {2, entry, allowed, count...}
 * counted (only when every window admits it, as the limiter's script), then with a claim that was
 * counted and allowed {admitted, used} of the share.
 */
export const KEY_AND_LIMIT_SCRIPT = `${SHARE_TAKE_LUA}
local v = redis.call('GET', KEYS[1])
if not v then return {0} end
local tenant, plan, expires = string.match(v, '^([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t')
if not tenant or tenant == '' then return {1, v} end
local now = tonumber(ARGV[1])
if expires ~= '' and tonumber(expires) <= now then return {1, v} end
local n = tonumber(ARGV[4])
local first = 9
local base = first + 2 * n
local limits = nil
local i = base + 1
while i <= #ARGV do
  if ARGV[i] == plan then limits = i break end
  i = i + 1 + n
end
if not limits then limits = base + 1 end
local keys = {}
local counts = {}
local allowed = 1
for w = 1, n do
  keys[w] = ARGV[2] .. 't:' .. tenant .. ':' .. ARGV[3] .. ARGV[first + w]
  counts[w] = tonumber(redis.call('GET', keys[w]) or '0')
  if counts[w] >= tonumber(ARGV[limits + w]) then allowed = 0 end
end
if allowed == 1 then
  for w = 1, n do
    counts[w] = redis.call('INCR', keys[w])
    if counts[w] == 1 then redis.call('PEXPIRE', keys[w], ARGV[first + n + w]) end
  end
end
local out = {2, v, allowed}
for w = 1, n do out[3 + w] = counts[w] end
if allowed == 1 and ARGV[5] ~= '' then
  local s = take(ARGV[5] .. tenant, now, ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]))
  out[4 + n] = s[1]
  out[5 + n] = s[2]
end
return out
`;

/**
 * How long a usable record is served: the tenant's plan rides in it, so this bounds how long a plan
 * change takes to reach the rate limit (as the in-memory plan cache's TTL does).
 */
export const KEY_RECORD_TTL_MS = 30_000;
/** A hash with no usable key: short for unknown hashes (a flood of forged keys stays cheap)... */
const UNKNOWN_TTL_MS = 5_000;
/** ...long for a revoked/deleted one, so that no fill that began before the revoke can replace it. */
const FORGOTTEN_TTL_MS = 3_600_000;

const encode = (r: KeyRecord | null) =>
  r ? `${r.tenantId}\t${r.plan}\t${r.expiresAt ?? ''}\t${JSON.stringify(r)}` : '\t\t\tnull';

/** The record from an entry's last field (JSON holds no raw tab); anything unreadable is "no usable key". */
function decodeRecord(entry: unknown): KeyRecord | null {
  if (typeof entry !== 'string') return null;
  const json = entry.split('\t')[3];
  return json ? (JSON.parse(json) as KeyRecord | null) : null;
}

export interface KeyRecordOptions {
  prefix: string;
  scale: number;
  timeoutMs: number;
  now: Clock;
  onFallback: (err: unknown) => void;
}

export class UpstashKeyRecords implements KeyRecordCache {
  private readonly script;
  /** the rules of every plan for a kind, built once */
  private readonly rules = new Map<RateKind, { plan: TenantPlan; rule: RateRule }[]>();

  constructor(
    private readonly redis: Redis,
    private readonly options: KeyRecordOptions,
  ) {
    this.script = redis.createScript<[number, string?, ...number[]]>(KEY_AND_LIMIT_SCRIPT);
  }

  private rulesOf(kind: RateKind) {
    let rules = this.rules.get(kind);
    if (!rules) {
      rules = PLANS.map((plan) => ({ plan, rule: ruleOf(limitFor(plan, kind, this.options.scale)) }));
      this.rules.set(kind, rules);
    }
    return rules;
  }

  async read(hash: string, method: string, path: string, claim?: ShareClaim) {
    const { now: clock, prefix, timeoutMs } = this.options;
    const now = clock();
    const kind = rateKindOf(method, path);
    const rules = this.rulesOf(kind);
    const windows = rules[0]!.rule.windows;
    // a claim on another Redis than this one is not taken here: its share middleware acquires it
    const share = claim && claim.redis === this.redis ? claim : undefined;
    // the script builds the tenant's counter keys itself: they take the deployment's prefix here
    const args = [String(now), this.redis.keyPrefix + prefix, kind, String(windows.length)];
    if (share)
      args.push(
        this.redis.keyPrefix + SHARE_PREFIX,
        shareMember(share.id, share.cost),
        String(share.cost),
        String(share.share),
        String(share.leaseMs),
      );
    else args.push('', '', '', '', '');
    for (const w of windows) args.push(`:${w.windowMs}:${windowStart(now, w.windowMs)}`);
    for (const w of windows) args.push(String(windowStart(now, w.windowMs) + w.windowMs - now + 1000));
    for (const { plan, rule } of rules) args.push(plan, ...rule.windows.map((w) => String(w.limit)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = await Promise.race([
        this.script.exec([`kc:${hash}`], args),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`key cache timeout after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      if (!Array.isArray(reply) || reply[0] === 0) return undefined;
      const record = decodeRecord(reply[1]);
      if (reply[0] !== 2 || !record) return { record };
      const [allowed, ...rest] = reply.slice(2).map(Number);
      const counts = rest.slice(0, windows.length);
      const rule = (rules.find((r) => r.plan === record.plan) ?? rules[0]!).rule;
      const counted: RateDecision = decide(rule, now, counts, allowed === 1);
      if (!share || allowed !== 1) return { record, counted };
      // (a script that took the share always answers both fields)
      if (rest.length !== windows.length + 2) return { record, counted };
      const held: HeldShare = {
        id: share.id,
        cost: share.cost,
        admitted: rest[windows.length] === 1,
        used: rest[windows.length + 1]!,
        taken: false,
        release: async () => {
          await this.redis.zrem(`${SHARE_PREFIX}${record.tenantId}`, shareMember(share.id, share.cost));
        },
      };
      return { record, counted, share: held };
    } catch (err) {
      this.options.onFallback(err);
      return undefined;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  async fill(hash: string, record: KeyRecord | null): Promise<void> {
    const ttl = !record ? UNKNOWN_TTL_MS : record.revoked ? FORGOTTEN_TTL_MS : KEY_RECORD_TTL_MS;
    await this.redis.set(`kc:${hash}`, encode(record?.revoked ? null : record), { nx: true, px: ttl });
  }

  async forget(hash: string): Promise<void> {
    // overwrites whatever is there (a live record), and outlives any fill still in flight
    const write = () => this.redis.set(`kc:${hash}`, encode(null), { px: FORGOTTEN_TTL_MS });
    await write().catch(write);
  }
}
