import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { actorOf, roleGuard, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { containsPattern } from '../../shared/db/like';
import { pageWithTotal } from '../../shared/db/paging';
import type { KbArticlesTable, KbProviderId, KbPublicationsTable } from '../../shared/db/tables/contacts_kb';
import type { ArticleRef } from '../../shared/events/catalog';
import { emitEvent, iso } from '../../shared/events/emit';
import { badRequest, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { PublishError, publisherFor } from './publishers';
import {
  ArticleIdParam,
  CreateArticleBody,
  HelpCenterArticleParam,
  HelpCenterQuery,
  HelpCenterTenantParam,
  ListArticlesQuery,
  UpdateArticleBody,
} from './schemas';

/**
 * Knowledge base: authoring and publishing (dashboard: `/api/kb/create-v2`, `/api/v2/kb/articles`)
 * and the public help center (`/api/v1/help-center/{tenant_id}/...`, no credential).
 * docs/kb.md describes the destinations, the response shapes and the event rules.
 */
export const app = new Hono<AppEnv>();

type ArticleRow = Selectable<KbArticlesTable>;
type PublicationRow = Selectable<KbPublicationsTable>;
type Db = AppEnv['Variables']['services']['db'];

for (const path of ['/api/kb/*', '/api/v2/kb/*']) {
  app.use(path, roleGuard('agent'));
}

const publicationView = (p: PublicationRow) => ({
  provider_id: p.provider_id,
  status: p.status,
  url: p.url,
  error: p.error,
});

const ORDER: Record<KbProviderId, number> = { native: 0, itsm: 1 };

const articleView = (a: ArticleRow, pubs: PublicationRow[]) => ({
  id: a.id,
  title: a.title,
  body: a.body,
  status: a.status,
  provider_id: a.provider_id,
  url: a.provider_id === 'native' ? null : a.url,
  tags: a.tags ?? [],
  category: a.category,
  language: a.language,
  destinations: a.destinations,
  publications: [...pubs].sort((x, y) => ORDER[x.provider_id] - ORDER[y.provider_id]).map(publicationView),
  created_at: iso(a.created_at),
  updated_at: iso(a.updated_at),
  published_at: iso(a.published_at),
});

/** The event payload's article, as seen at one destination. */
const articleRef = (a: ArticleRow, provider: KbProviderId, url: string | null): ArticleRef => ({
  id: a.id,
  title: a.title,
  status: a.status,
  url: provider === 'native' ? null : url,
  provider_id: provider,
  tags: a.tags ?? [],
  category: a.category,
  language: a.language,
  updated_at: iso(a.updated_at)!,
});

async function loadArticle(db: Db, tenantId: string, id: string) {
  const article = await db
    .selectFrom('kb_articles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!article) throw notFound('Article');
  const pubs = await db
    .selectFrom('kb_publications')
    .selectAll()
    .where('article_id', '=', article.id)
    .execute();
  return { article, pubs };
}

/**
 * Publishes to each destination in turn. A destination's write happens first (the upstream call,
 * or nothing for native); only a write that succeeded is committed, together with exactly one
 * kb.article.published, in its own transaction. A failed destination records its error and
 * emits nothing. Returns how many events were written.
 */
async function publishTo(c: Context<AppEnv>, start: ArticleRow, destinations: readonly KbProviderId[]) {
  const { db, config } = c.get('services');
  let current = start;
  let emitted = 0;
  for (const dest of destinations) {
    let result: { external_id: string | null; url: string | null };
    try {
      result = await publisherFor(dest, config).publish(current);
    } catch (err) {
      if (!(err instanceof PublishError)) throw err;
      const error = err.message;
      await db
        .insertInto('kb_publications')
        .values({
          article_id: current.id,
          tenant_id: current.tenant_id,
          provider_id: dest,
          status: 'failed',
          error,
        })
        .onConflict((oc) =>
          oc
            .columns(['article_id', 'provider_id'])
            .doUpdateSet({ status: 'failed', error, updated_at: new Date() }),
        )
        .execute();
      continue;
    }
    current = await db.transaction().execute(async (trx) => {
      const now = new Date();
      const row = await trx
        .updateTable('kb_articles')
        .set({
          status: 'published',
          updated_at: now,
          published_at: sql`coalesce(published_at, ${now})`,
          ...(dest === 'itsm' && current.provider_id === 'itsm' ? { url: result.url } : {}),
        })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const fields = {
        status: 'published' as const,
        external_id: result.external_id,
        url: result.url,
        error: null,
      };
      await trx
        .insertInto('kb_publications')
        .values({ article_id: row.id, tenant_id: row.tenant_id, provider_id: dest, ...fields })
        .onConflict((oc) =>
          oc.columns(['article_id', 'provider_id']).doUpdateSet({ ...fields, updated_at: now }),
        )
        .execute();
      await emitEvent(trx, row.tenant_id, 'kb.article.published', {
        article: articleRef(row, dest, result.url),
      });
      return row;
    });
    emitted++;
  }
  return { article: current, emitted };
}

/**
 * Create an article and publish it to its destinations. 201 with the article and one
 * `publications` entry per destination (`published` or `failed` with `error`); the request
 * succeeds even when a destination fails. `status: "draft"` publishes nowhere and emits nothing.
 */
app.post('/api/kb/create-v2', validate('json', CreateArticleBody), async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, config, events } = c.get('services');
  if (body.status === 'published' && body.destinations.includes('itsm') && !config.ITSM_KB_URL)
    throw badRequest('Destination itsm is not configured');
  const destinations = [...body.destinations].sort((a, b) => ORDER[a] - ORDER[b]);
  // stage 1 (intermediate, emits nothing): the article exists as a draft
  const draft = await db
    .insertInto('kb_articles')
    .values({
      id: newId('article'),
      tenant_id: tenantId,
      title: body.title,
      body: body.body,
      status: 'draft',
      provider_id: destinations.includes('native') ? 'native' : 'itsm',
      tags: body.tags,
      category: body.category ?? null,
      language: body.language,
      destinations,
      created_by: actorOf(c),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (body.status === 'draft') return c.json(articleView(draft, []), 201);
  // stage 2: one write per destination, one event per successful write
  const { emitted } = await publishTo(c, draft, destinations);
  if (emitted > 0) events.kick();
  const { article, pubs } = await loadArticle(db, tenantId, draft.id);
  return c.json(articleView(article, pubs), 201);
});

app.get('/api/v2/kb/articles', validate('query', ListArticlesQuery), async (c) => {
  const query = c.req.valid('query');
  const { db } = c.get('services');
  let base = db.selectFrom('kb_articles').where('tenant_id', '=', tenantOf(c));
  if (query.status) base = base.where('status', '=', query.status);
  if (query.q) {
    const p = containsPattern(query.q);
    base = base.where((eb) => eb.or([eb('title', 'ilike', p), eb('body', 'ilike', p)]));
  }
  const { rows, total } = await pageWithTotal(base, query, (q) =>
    q.selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc'),
  );
  const pubs =
    rows.length === 0
      ? []
      : await db
          .selectFrom('kb_publications')
          .selectAll()
          .where(
            'article_id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
  const views = rows.map((r) =>
    articleView(
      r,
      pubs.filter((p) => p.article_id === r.id),
    ),
  );
  return c.json(pageEnvelope('articles', views, total, query));
});

app.get('/api/v2/kb/articles/:article_id', validate('param', ArticleIdParam), async (c) => {
  const { article_id } = c.req.valid('param');
  const { article, pubs } = await loadArticle(c.get('services').db, tenantOf(c), article_id);
  return c.json(articleView(article, pubs));
});

/**
 * Edit an article. Emits kb.article.updated (once) when the article is a help-center (native)
 * article that was published before the edit and the edit changed something. A PATCH that
 * changes nothing is a 200 no-op without event. Setting `status: "published"` on an unpublished
 * article publishes it to its destinations exactly like create-v2 (kb.article.published per
 * successful destination).
 */
app.patch(
  '/api/v2/kb/articles/:article_id',
  validate('param', ArticleIdParam),
  validate('json', UpdateArticleBody),
  async (c) => {
    const { article_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { db, config, events } = c.get('services');
    const { article: before } = await loadArticle(db, tenantId, article_id);
    const set: Record<string, unknown> = {};
    for (const key of ['title', 'body', 'language'] as const)
      if (body[key] !== undefined && body[key] !== before[key]) set[key] = body[key];
    if (body.category !== undefined && (body.category ?? null) !== before.category)
      set.category = body.category ?? null;
    if (body.tags !== undefined && JSON.stringify(body.tags) !== JSON.stringify(before.tags))
      set.tags = body.tags;
    const publishing = body.status === 'published' && before.status !== 'published';
    if (body.status !== undefined && body.status !== before.status && !publishing) set.status = body.status;
    if (Object.keys(set).length === 0 && !publishing) {
      const { article, pubs } = await loadArticle(db, tenantId, before.id);
      return c.json(articleView(article, pubs));
    }
    if (publishing && before.destinations.includes('itsm') && !config.ITSM_KB_URL)
      throw badRequest('Destination itsm is not configured');
    let emitted = 0;
    let after = before;
    if (Object.keys(set).length > 0) {
      after = await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('kb_articles')
          .set({ ...set, updated_at: new Date() })
          .where('id', '=', before.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        if (before.provider_id === 'native' && before.status === 'published') {
          await emitEvent(trx, tenantId, 'kb.article.updated', { article: articleRef(row, 'native', null) });
          emitted++;
        }
        return row;
      });
    }
    if (publishing) emitted += (await publishTo(c, after, after.destinations)).emitted;
    if (emitted > 0) events.kick();
    const { article, pubs } = await loadArticle(db, tenantId, before.id);
    return c.json(articleView(article, pubs));
  },
);

// ---- public help center (no credential) -----------------------------------------------------

const helpCenterView = (a: ArticleRow) => ({
  id: a.id,
  title: a.title,
  body: a.body,
  url: null,
  tags: a.tags ?? [],
  category: a.category,
  language: a.language,
  updated_at: iso(a.updated_at),
});

async function assertHelpCenter(db: Db, tenantId: string) {
  const tenant = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw notFound('Help center');
}

const publishedNative = (db: Db, tenantId: string) =>
  db
    .selectFrom('kb_articles')
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'published')
    .where('provider_id', '=', 'native');

app.get(
  '/api/v1/help-center/:tenant_id/articles',
  validate('param', HelpCenterTenantParam),
  validate('query', HelpCenterQuery),
  async (c) => {
    const { tenant_id } = c.req.valid('param');
    const query = c.req.valid('query');
    const { db } = c.get('services');
    await assertHelpCenter(db, tenant_id);
    let base = publishedNative(db, tenant_id);
    if (query.category) base = base.where('category', '=', query.category);
    if (query.q) {
      const words = query.q.split(/\s+/).filter(Boolean).slice(0, 10);
      for (const word of words) {
        const p = containsPattern(word);
        base = base.where((eb) => eb.or([eb('title', 'ilike', p), eb('body', 'ilike', p)]));
      }
    }
    const { rows, total } = await pageWithTotal(base, query, (q) =>
      q.selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc'),
    );
    return c.json(pageEnvelope('articles', rows.map(helpCenterView), total, query));
  },
);

app.get(
  '/api/v1/help-center/:tenant_id/articles/:article_id',
  validate('param', HelpCenterArticleParam),
  async (c) => {
    const { tenant_id, article_id } = c.req.valid('param');
    const row = await publishedNative(c.get('services').db, tenant_id)
      .selectAll()
      .where('id', '=', article_id)
      .executeTakeFirst();
    if (!row) throw notFound('Article');
    return c.json(helpCenterView(row));
  },
);
