import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { z } from 'zod';
import { containsPattern } from '../../shared/db/like';
import { pageWithTotal } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { KbArticlesTable, KbProviderId, KbPublicationsTable } from '../../shared/db/tables/contacts_kb';
import { iso } from '../../shared/events/emit';
import type { ArticleRef } from '../../shared/events/payloads';
import { newId } from '../../shared/ids';
import type { HelpCenterQuery, ListArticlesQuery } from './schemas';

/**
 * Every query of the knowledge base (authoring, publications, public help center) and its views
 * (row -> JSON). The handlers in app.ts call these.
 */

export type ArticleRow = Selectable<KbArticlesTable>;
export type PublicationRow = Selectable<KbPublicationsTable>;

// ---- views ----------------------------------------------------------------------------------

/** Destinations in their fixed order: the native help center first, then itsm. */
export const ORDER: Record<KbProviderId, number> = { native: 0, itsm: 1 };

const publicationView = (p: PublicationRow) => ({
  provider_id: p.provider_id,
  status: p.status,
  url: p.url,
  error: p.error,
});

export const articleView = (a: ArticleRow, pubs: PublicationRow[]) => ({
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
export const articleRef = (a: ArticleRow, provider: KbProviderId, url: string | null): ArticleRef => ({
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

export const helpCenterView = (a: ArticleRow) => ({
  id: a.id,
  title: a.title,
  body: a.body,
  url: null,
  tags: a.tags ?? [],
  category: a.category,
  language: a.language,
  updated_at: iso(a.updated_at),
});

// ---- articles -------------------------------------------------------------------------------

export const findArticle = (db: Executor, tenantId: string, id: string) =>
  db
    .selectFrom('kb_articles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The publications of the given articles (none asked, none read). */
export const publicationsOf = (db: Executor, articleIds: string[]): Promise<PublicationRow[]> =>
  articleIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('kb_publications').selectAll().where('article_id', 'in', articleIds).execute();

export interface NewArticle {
  tenantId: string;
  title: string;
  body: string;
  provider_id: KbProviderId;
  tags: string[];
  category: string | null;
  language: string;
  destinations: KbProviderId[];
  createdBy: string;
}

/** The article as a draft: created before it is published anywhere. */
export const insertDraft = (db: Executor, a: NewArticle) =>
  db
    .insertInto('kb_articles')
    .values({
      id: newId('article'),
      tenant_id: a.tenantId,
      title: a.title,
      body: a.body,
      status: 'draft',
      provider_id: a.provider_id,
      tags: a.tags,
      category: a.category,
      language: a.language,
      destinations: a.destinations,
      created_by: a.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** A page of the tenant's articles, most recently updated first, and their total. */
export function listArticles(db: Executor, tenantId: string, query: z.output<typeof ListArticlesQuery>) {
  let base = db.selectFrom('kb_articles').where('tenant_id', '=', tenantId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.q) {
    const p = containsPattern(query.q);
    base = base.where((eb) => eb.or([eb('title', 'ilike', p), eb('body', 'ilike', p)]));
  }
  return pageWithTotal(base, query, (q) => q.selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc'));
}

/** Writes `set` (already diffed by the handler) and a new updated_at to one article. */
export const updateArticleRow = (trx: Executor, id: string, set: Record<string, unknown>) =>
  trx
    .updateTable('kb_articles')
    .set({ ...set, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

/**
 * The article published as of `now` (published_at keeps its first value); `url`, when given,
 * becomes the article's url.
 */
export const markArticlePublished = (trx: Executor, id: string, now: Date, url?: string | null) =>
  trx
    .updateTable('kb_articles')
    .set({
      status: 'published',
      updated_at: now,
      published_at: sql`coalesce(published_at, ${now})`,
      ...(url !== undefined ? { url } : {}),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

type PublicationFields =
  | { status: 'failed'; error: string }
  | { status: 'published'; external_id: string | null; url: string | null; error: null };

/** One destination's publication record of the article, created or replaced by `fields`. */
export async function upsertPublication(
  db: Executor,
  article: Pick<ArticleRow, 'id' | 'tenant_id'>,
  providerId: KbProviderId,
  fields: PublicationFields,
  now: Date,
) {
  await db
    .insertInto('kb_publications')
    .values({ article_id: article.id, tenant_id: article.tenant_id, provider_id: providerId, ...fields })
    .onConflict((oc) => oc.columns(['article_id', 'provider_id']).doUpdateSet({ ...fields, updated_at: now }))
    .execute();
}

// ---- public help center ---------------------------------------------------------------------

const publishedNative = (db: Executor, tenantId: string) =>
  db
    .selectFrom('kb_articles')
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'published')
    .where('provider_id', '=', 'native');

/** A page of the tenant's published native articles; `q`: every word (up to 10) in the title or body. */
export function listHelpCenterArticles(
  db: Executor,
  tenantId: string,
  query: z.output<typeof HelpCenterQuery>,
) {
  let base = publishedNative(db, tenantId);
  if (query.category) base = base.where('category', '=', query.category);
  if (query.q) {
    const words = query.q.split(/\s+/).filter(Boolean).slice(0, 10);
    for (const word of words) {
      const p = containsPattern(word);
      base = base.where((eb) => eb.or([eb('title', 'ilike', p), eb('body', 'ilike', p)]));
    }
  }
  return pageWithTotal(base, query, (q) => q.selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc'));
}

export const findHelpCenterArticle = (db: Executor, tenantId: string, articleId: string) =>
  publishedNative(db, tenantId).selectAll().where('id', '=', articleId).executeTakeFirst();
