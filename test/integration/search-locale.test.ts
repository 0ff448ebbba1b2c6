import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REINDEX_BATCH } from '../../shared/search/reindex';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * Search in the language of the tenant's locale (docs/search.md, "Languages"): an English tenant
 * finds `printers` with `printer`, a German tenant German word forms, a locale with no configuration
 * matches words as written; exact words, phrases of stop words and prefixes match as before;
 * changing the locale re-indexes the tenant's rows (replies too) and no other tenant's.
 */
describe.skipIf(postgresUnavailable())('search in the tenant language', () => {
  let h: Harness;
  let en: TestTenant;
  let de: TestTenant;
  let xx: TestTenant;
  const keys = new Map<TestTenant, string>();

  const setLocale = async (tenant: TestTenant, locale: string) => {
    const res = await h.request('PATCH', '/api/v1/config/general', {
      bearer: tenant.adminToken,
      body: { locale },
    });
    expect(res.status, res.text).toBe(200);
  };
  const createTicket = async (tenant: TestTenant, subject: string, description: string) => {
    const res = await h.request('POST', '/api/v1/tickets', {
      bearer: tenant.adminToken,
      body: { subject, description },
    });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.id as string;
  };
  const search = async (tenant: TestTenant, query: string) => {
    const res = await h.request('GET', `/api/v1/tickets/search?query=${encodeURIComponent(query)}`, {
      apiKey: keys.get(tenant)!,
    });
    expect(res.status, res.text).toBe(200);
    return res.body as {
      hits: {
        record: { id: string };
        highlights: { field: string; fragment: string; matches: [number, number][] }[];
      }[];
    };
  };
  const ids = async (tenant: TestTenant, query: string) =>
    (await search(tenant, query)).hits.map((x) => x.record.id);

  let enTicket: string;
  let deTicket: string;
  let xxTicket: string;

  beforeAll(async () => {
    h = await startHarness();
    en = await h.tenant();
    de = await h.tenant();
    xx = await h.tenant();
    for (const t of [en, de, xx]) keys.set(t, await t.key(['tickets:read']));
    await setLocale(en, 'en-GB');
    await setLocale(de, 'de');
    await setLocale(xx, 'tlh');
    enTicket = await createTicket(en, 'Printers on hold', 'All the printers are jamming again.');
    deTicket = await createTicket(de, 'Drucker in den Häusern', 'Die Rechnungen wurden nicht gedruckt.');
    xxTicket = await createTicket(xx, 'Printers on hold', 'All the printers are jamming again.');
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  it('an English tenant finds word forms (stemming) and still the words as written', async () => {
    expect(await ids(en, 'printer')).toEqual([enTicket]);
    expect(await ids(en, 'jam')).toEqual([enTicket]);
    expect(await ids(en, 'printers')).toEqual([enTicket]);
    // the query is stemmed too: neither form is in the text as written
    expect(await ids(en, 'jams')).toEqual([enTicket]);
    expect(await ids(en, '"on hold"')).toEqual([enTicket]);
    expect(await ids(en, '"printers on hold"')).toEqual([enTicket]);
    expect(await ids(en, 'print*')).toEqual([enTicket]);
    expect(await ids(en, 'jammi*')).toEqual([enTicket]);
    expect(await ids(en, 'jam -printer')).toEqual([]);
    expect(await ids(en, 'scanner')).toEqual([]);
  });

  it('highlights point at the words as written', async () => {
    const [hit] = (await search(en, 'printers')).hits;
    expect(hit!.highlights.find((x) => x.field === 'subject')?.fragment).toContain('Printers');
  });

  it('highlights mark the words a stem matched, at their offsets', async () => {
    const marked = async (tenant: TestTenant, query: string) =>
      (await search(tenant, query)).hits.flatMap((x) =>
        x.highlights.flatMap((hl) => hl.matches.map(([s, e]) => `${hl.field}:${hl.fragment.slice(s, e)}`)),
      );
    // neither `printer` nor `jams` is in the ticket as written
    expect(await marked(en, 'printer')).toEqual(['subject:Printers', 'description:printers']);
    expect(await marked(en, 'jams')).toEqual(['description:jamming']);
    expect(await marked(de, 'Haus')).toEqual(['subject:Häusern']);
    // a tenant without a language matches, and marks, words as written alone
    expect(await marked(xx, 'printers')).toEqual(['subject:Printers', 'description:printers']);
  });

  it('a German tenant finds German word forms', async () => {
    expect(await ids(de, 'Haus')).toEqual([deTicket]);
    expect(await ids(de, 'Rechnung')).toEqual([deTicket]);
    expect(await ids(de, 'Häusern')).toEqual([deTicket]);
    expect(await ids(de, 'Häuser')).toEqual([deTicket]);
    expect(await ids(de, '"in den Häusern"')).toEqual([deTicket]);
    expect(await ids(de, 'printer')).toEqual([]);
  });

  it('a locale with no configuration matches words as written (simple)', async () => {
    expect(await ids(xx, 'printer')).toEqual([]);
    expect(await ids(xx, 'printers')).toEqual([xxTicket]);
    expect(await ids(xx, 'print*')).toEqual([xxTicket]);
    expect(await ids(xx, '"on hold"')).toEqual([xxTicket]);
  });

  it('changing the locale re-indexes the tenant, replies and all, in batches, and no other tenant', async () => {
    const t = await h.tenant();
    keys.set(t, await t.key(['tickets:read']));
    await setLocale(t, 'tlh');
    const first = await createTicket(t, 'Printers', 'x');
    const reply = await h.request('POST', `/api/v1/tickets/${first}/replies`, {
      bearer: t.adminToken,
      body: { body: 'The invoices were resent.', is_public: true },
    });
    expect(reply.status, reply.text).toBe(201);
    // more rows than one batch, written straight to the table
    await h.db
      .insertInto('tickets')
      .values(
        Array.from({ length: REINDEX_BATCH + 7 }, (_, i) => ({
          id: `tkt_reidx_${t.id}_${i}`,
          tenant_id: t.id,
          subject: `Printers ${i}`,
          description: 'd',
          created_by: 'seed',
        })) as never,
      )
      .execute();
    expect(await ids(t, 'printer')).toEqual([]);
    expect(await ids(t, 'invoice')).toEqual([]);
    await setLocale(t, 'en');
    const left = await sql<{ n: string }>`
      select count(*) as n from tickets where tenant_id = ${t.id} and search_config::text <> 'english'`.execute(
      h.db,
    );
    expect(Number(left.rows[0]?.n)).toBe(0);
    expect(await ids(t, 'invoice')).toEqual([first]);
    const res = await h.request('GET', `/api/v1/tickets/search?query=printer&limit=100`, {
      apiKey: keys.get(t)!,
    });
    expect(res.body.hits.length).toBe(100);
    // the other tenants keep their own language
    expect(await ids(xx, 'printer')).toEqual([]);
    expect(await ids(de, 'Haus')).toEqual([deTicket]);
    // and back: as written only
    await setLocale(t, 'tlh');
    expect(await ids(t, 'invoice')).toEqual([]);
    expect(await ids(t, 'invoices')).toEqual([first]);
  }, 60_000);
});
