import { describe, expect, it } from 'vitest';
import { RowCache, readThrough } from '../../shared/db/row-cache';
import { mayWriteWatched, WriteWatch } from '../../shared/db/write-watch';

describe('mayWriteWatched: which statements can change a cached ticket', () => {
  it.each([
    ['update "tickets" set "subject" = $1 where "id" = $2', true],
    ['insert into "tickets" ("id") values ($1)', true],
    ['delete from "tickets" where "tenant_id" = $1', true],
    ['delete from "calls" where "id" = $1', true], // tickets.call_id is SET NULL by the foreign key
    ['TRUNCATE tickets, ticket_replies', true],
    ['with moved as (update tickets set status = $1 returning id) select count(*) from moved', true],
    ['select * from "tickets" where "id" = $1 for update', true], // errs towards yes
    ['select * from "tickets" where "id" = $1', false],
    ['insert into "usage_records" ("id") values ($1)', false],
    ['update "api_keys" set "last_used_at" = $1', false],
    ['insert into "ticket_replies" ("id") values ($1)', false],
    ['update "ticket_counts" set n = n + 1', false],
  ])('%s -> %s', (sqlText, expected) => {
    expect(mayWriteWatched(sqlText)).toBe(expected);
  });
});

describe('RowCache', () => {
  const counting = (value: string | undefined) => {
    let calls = 0;
    const load = async () => {
      calls++;
      return value;
    };
    return { load, calls: () => calls };
  };

  it('serves a second read from memory while nothing was written', async () => {
    const cache = new RowCache(new WriteWatch(true));
    const l = counting('v1');
    expect(await cache.read('t1:a', l.load)).toBe('v1');
    expect(await cache.read('t1:a', l.load)).toBe('v1');
    expect(l.calls()).toBe(1);
  });

  it('keys are separate: another tenant or id loads on its own', async () => {
    const cache = new RowCache(new WriteWatch(true));
    await cache.read('t1:a', async () => 'tenant 1');
    expect(await cache.read('t2:a', async () => 'tenant 2')).toBe('tenant 2');
  });

  it('any write to the watched tables makes every entry a miss', async () => {
    const watch = new WriteWatch(true);
    const cache = new RowCache(watch);
    await cache.read('k', async () => 'old');
    watch.bump();
    expect(await cache.read('k', async () => 'new')).toBe('new');
  });

  it('a value loaded while a write started or ended is returned but not kept', async () => {
    const watch = new WriteWatch(true);
    const cache = new RowCache(watch);
    const raced = await cache.read('k', async () => {
      watch.bump(); // a write begins while the read is in flight
      return 'maybe stale';
    });
    expect(raced).toBe('maybe stale');
    const l = counting('fresh');
    expect(await cache.read('k', l.load)).toBe('fresh');
    expect(l.calls()).toBe(1);
  });

  it('misses (undefined) are not cached', async () => {
    const cache = new RowCache(new WriteWatch(true));
    const l = counting(undefined);
    await cache.read('k', l.load);
    await cache.read('k', l.load);
    expect(l.calls()).toBe(2);
  });

  it('stands aside while other writers cannot be heard, and resumes (empty) once they can', async () => {
    const watch = new WriteWatch(false);
    const cache = new RowCache(watch);
    const l = counting('v');
    await cache.read('k', l.load);
    await cache.read('k', l.load);
    expect(l.calls()).toBe(2);
    expect(cache.size).toBe(0);
    watch.setOthersHeard(true);
    await cache.read('k', l.load);
    await cache.read('k', l.load);
    expect(l.calls()).toBe(3);
    watch.setOthersHeard(false); // the channel drops: what was cached is not served
    await cache.read('k', l.load);
    expect(l.calls()).toBe(4);
  });

  it('entries expire after the TTL and the oldest goes when full', async () => {
    const cache = new RowCache(new WriteWatch(true), { maxEntries: 2, ttlMs: 0 });
    const l = counting('v');
    await cache.read('a', l.load);
    await cache.read('a', l.load);
    expect(l.calls()).toBe(2); // ttl 0: never served

    const small = new RowCache(new WriteWatch(true), { maxEntries: 2, ttlMs: 60_000 });
    for (const k of ['a', 'b', 'c']) await small.read(k, async () => k);
    expect(small.size).toBe(2);
    const a = counting('a again');
    expect(await small.read('a', a.load)).toBe('a again');
    expect(a.calls()).toBe(1);
  });

  it('readThrough without a cache (the edge) always loads', async () => {
    const l = counting('v');
    await readThrough(undefined, 'k', l.load);
    await readThrough(undefined, 'k', l.load);
    expect(l.calls()).toBe(2);
  });
});
