import { afterEach, describe, expect, it } from 'vitest';
import { type QStashStandIn, signQStashCallback, startQStashStandIn } from '../../scripts/edge/qstash';
import {
  callbackUrl,
  createQStashScheduler,
  qstashConfigured,
  verifyQStashSignature,
} from '../../shared/webhooks/qstash';

const BASE = 'https://api.example.test';
const CALLBACK = callbackUrl({ PUBLIC_BASE_URL: BASE });
const BODY = JSON.stringify({ delivery_id: 'whd_region', attempt: 2 });

const DEFAULT_KEYS = {
  QSTASH_CURRENT_SIGNING_KEY: 'sig_default_current',
  QSTASH_NEXT_SIGNING_KEY: 'sig_default_next',
};
const US_KEYS = {
  US_EAST_1_QSTASH_CURRENT_SIGNING_KEY: 'sig_us_current',
  US_EAST_1_QSTASH_NEXT_SIGNING_KEY: 'sig_us_next',
};
/** multi-region QStash on, default and US_EAST_1 keys set */
const MULTI = { PUBLIC_BASE_URL: BASE, QSTASH_REGION: 'us-east-1', ...DEFAULT_KEYS, ...US_KEYS };

const verify = async (config: Parameters<typeof verifyQStashSignature>[0], key: string, region?: string) =>
  verifyQStashSignature(config, await signQStashCallback(key, CALLBACK, BODY), BODY, region);

describe('QStash callbacks from several regions', () => {
  const standIns: QStashStandIn[] = [];
  afterEach(async () => {
    await Promise.all(standIns.splice(0).map((s) => s.close()));
  });

  /** The stand-in signs with `key` and names `region`; the callback is verified with `config`. */
  async function deliverThrough(config: typeof MULTI, key: string, region: string) {
    const qstash = await startQStashStandIn({
      currentSigningKey: key,
      region,
      retryDelayMs: 1,
      deliver: async (req) => {
        const ok = await verifyQStashSignature(
          config,
          req.headers.get('upstash-signature') ?? undefined,
          await req.text(),
          req.headers.get('upstash-region') ?? undefined,
        );
        return new Response(null, { status: ok ? 200 : 401 });
      },
    });
    standIns.push(qstash);
    await createQStashScheduler({ ...config, QSTASH_URL: qstash.url, QSTASH_TOKEN: 'tok' }).schedule(
      'whd_region',
      2,
      new Date(),
    );
    await qstash.settled();
    return qstash.deliveries.map((d) => d.status);
  }

  it("accepts a callback signed with its region's key, and refuses the default key claiming that region", async () => {
    expect(await deliverThrough(MULTI, 'sig_us_current', 'us-east-1')).toEqual([200]);
    // the scheduler asks for 3 retries: QStash tries 4 times, each refused
    expect(await deliverThrough(MULTI, 'sig_default_current', 'us-east-1')).toEqual([401, 401, 401, 401]);
    // the region's next key, and the header spelt as the SDK normalises it
    expect(await verify(MULTI, 'sig_us_next', 'US_EAST_1')).toBe(true);
    expect(await verify(MULTI, 'sig_default_next', 'us-east-1')).toBe(false);
  });

  it('falls back to the default keys for a region without keys, no header, or an unknown region', async () => {
    expect(await verify(MULTI, 'sig_default_current', 'eu-central-1')).toBe(true);
    expect(await verify(MULTI, 'sig_us_current', 'eu-central-1')).toBe(false);
    expect(await verify(MULTI, 'sig_default_current')).toBe(true);
    expect(await verify(MULTI, 'sig_us_current')).toBe(false);
    expect(await verify(MULTI, 'sig_default_next', 'ap-south-1')).toBe(true);
    expect(await verify(MULTI, 'sig_us_current', 'ap-south-1')).toBe(false);
    expect(await verify(MULTI, 'sig_other', 'ap-south-1')).toBe(false);
    // one region key set is not a pair: the default keys
    const half = { ...MULTI, US_EAST_1_QSTASH_NEXT_SIGNING_KEY: undefined };
    expect(await verify(half, 'sig_default_current', 'us-east-1')).toBe(true);
    expect(await verify(half, 'sig_us_current', 'us-east-1')).toBe(false);
  });

  it('uses region keys only when multi-region QStash is on (QSTASH_REGION), as the SDK does', async () => {
    const off = { ...MULTI, QSTASH_REGION: undefined };
    expect(await verify(off, 'sig_us_current', 'us-east-1')).toBe(false);
    expect(await verify(off, 'sig_default_current', 'us-east-1')).toBe(true);
    // no keys at all: refused
    expect(
      await verify({ PUBLIC_BASE_URL: BASE, QSTASH_REGION: 'us-east-1' }, 'sig_default_current', 'us-east-1'),
    ).toBe(false);
  });
});

describe('QStash publishes from the configured region', () => {
  const standIns: QStashStandIn[] = [];
  afterEach(async () => {
    await Promise.all(standIns.splice(0).map((s) => s.close()));
  });
  const start = async () => {
    const s = await startQStashStandIn();
    standIns.push(s);
    return s;
  };

  it("publishes to QSTASH_REGION's URL with its token when both are set, else to the defaults", async () => {
    const [home, us] = [await start(), await start()];
    const config = {
      PUBLIC_BASE_URL: BASE,
      QSTASH_URL: home.url,
      QSTASH_TOKEN: 'tok_default',
      US_EAST_1_QSTASH_URL: us.url,
      US_EAST_1_QSTASH_TOKEN: 'tok_us',
    };
    const publishTo = (c: Parameters<typeof createQStashScheduler>[0]) =>
      createQStashScheduler(c).schedule('whd_region', 2, new Date(Date.now() + 60_000));

    await publishTo({ ...config, QSTASH_REGION: 'us-east-1' });
    expect(us.publishes.map((p) => p.headers.authorization)).toEqual(['Bearer tok_us']);
    expect(home.publishes).toHaveLength(0);

    // multi-region off, a region without both settings, an unknown region: the default URL and token
    await publishTo(config);
    await publishTo({ ...config, QSTASH_REGION: 'EU_CENTRAL_1' });
    await publishTo({ ...config, QSTASH_REGION: 'us-east-1', US_EAST_1_QSTASH_TOKEN: undefined });
    await publishTo({ ...config, QSTASH_REGION: 'mars-1' });
    expect(home.publishes.map((p) => p.headers.authorization)).toEqual(Array(4).fill('Bearer tok_default'));
    expect(us.publishes).toHaveLength(1);
  });

  it("counts the region's URL and token alone as configured", () => {
    const regionOnly = {
      PUBLIC_BASE_URL: BASE,
      QSTASH_REGION: 'eu-central-1',
      EU_CENTRAL_1_QSTASH_URL: 'https://qstash-eu-central-1.upstash.io',
      EU_CENTRAL_1_QSTASH_TOKEN: 't',
    };
    expect(qstashConfigured(regionOnly)).toBe(true);
    expect(qstashConfigured({ ...regionOnly, QSTASH_REGION: undefined })).toBe(false);
  });
});
