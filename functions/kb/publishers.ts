import type { Selectable } from 'kysely';
import type { KbArticlesTable, KbProviderId } from '../../shared/db/tables/contacts_kb';
import type { AppConfig } from '../../shared/env';

/**
 * A destination an article is published to. `publish` performs the destination's write and
 * answers where the article now lives; it throws PublishError when the write did not happen.
 *  - native: the help center is our own table, so the write is the status change the caller
 *    commits (with its event) right after; url is null.
 *  - itsm: `POST {ITSM_KB_URL}/articles` on the upstream ITSM knowledge base, which answers
 *    2xx `{id, url}`.
 */
export interface KbPublisher {
  id: KbProviderId;
  publish(article: Selectable<KbArticlesTable>): Promise<{ external_id: string | null; url: string | null }>;
}

export class PublishError extends Error {}

export const nativePublisher: KbPublisher = {
  id: 'native',
  async publish() {
    return { external_id: null, url: null };
  },
};

const ITSM_TIMEOUT_MS = 10_000;

export function itsmPublisher(config: Pick<AppConfig, 'ITSM_KB_URL' | 'ITSM_KB_TOKEN'>): KbPublisher {
  return {
    id: 'itsm',
    async publish(article) {
      if (!config.ITSM_KB_URL) throw new PublishError('itsm destination is not configured');
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Accept: 'application/json',
      };
      if (config.ITSM_KB_TOKEN) headers.Authorization = `Bearer ${config.ITSM_KB_TOKEN}`;
      let res: Response;
      try {
        res = await fetch(`${config.ITSM_KB_URL.replace(/\/+$/, '')}/articles`, {
          method: 'POST',
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(ITSM_TIMEOUT_MS),
          body: JSON.stringify({
            source_id: article.id,
            title: article.title,
            body: article.body,
            tags: article.tags,
            category: article.category,
            language: article.language,
          }),
        });
      } catch (err) {
        throw new PublishError(
          (err as Error)?.name === 'TimeoutError' ? 'itsm request timed out' : 'itsm unreachable',
        );
      }
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel();
        throw new PublishError(`itsm responded HTTP ${res.status}`);
      }
      let data: { id?: unknown; url?: unknown };
      try {
        data = (await res.json()) as typeof data;
      } catch {
        throw new PublishError('itsm response is not JSON');
      }
      const url =
        typeof data?.url === 'string' && /^https?:\/\//.test(data.url) ? data.url.slice(0, 2048) : null;
      if (!url) throw new PublishError('itsm response has no url');
      const id =
        typeof data.id === 'string' || typeof data.id === 'number' ? String(data.id).slice(0, 255) : null;
      return { external_id: id, url };
    },
  };
}

export const publisherFor = (id: KbProviderId, config: AppConfig): KbPublisher =>
  id === 'native' ? nativePublisher : itsmPublisher(config);

/** Where one destination's write left the article: its upstream id and url, or why it failed. */
export type PublishOutcome =
  | { ok: true; external_id: string | null; url: string | null }
  | { ok: false; error: string };

/** The destination's write: a PublishError is the destination's failure (any other error is ours, and thrown). */
export async function publishAt(
  dest: KbProviderId,
  article: Selectable<KbArticlesTable>,
  config: AppConfig,
): Promise<PublishOutcome> {
  try {
    return { ok: true, ...(await publisherFor(dest, config).publish(article)) };
  } catch (err) {
    if (!(err instanceof PublishError)) throw err;
    return { ok: false, error: err.message };
  }
}
