import type { Answerer } from '../../shared/context/conversation-ports';
import type { Services } from '../../shared/context/services';
import { publishedArticles } from './data';

// The AI auto-reply to widget and WhatsApp inbound messages: the one the runtime was given
// (Services.answerer, an LLM-backed one in production, a fake in tests), else the knowledge-base
// answerer below. The port: shared/context/conversation-ports.ts.

export type { Answerer } from '../../shared/context/conversation-ports';

const STOPWORDS = new Set(
  'the and for are but not you your with this that have from was were what when where which who how can does did has had its our out get got into about there their them they then than too very just also any all please thanks thank hello hi'.split(
    ' ',
  ),
);

/** Lower-cased words of 3+ letters/digits, stopwords dropped. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u))
    if (w.length >= 3 && !STOPWORDS.has(w)) out.add(w);
  return out;
}

/** Overlap score: a question word found in the title counts 2, in the body 1. */
export function scoreArticle(question: Set<string>, article: { title: string; body: string }): number {
  const title = words(article.title);
  const body = words(article.body);
  let score = 0;
  for (const w of question) {
    if (title.has(w)) score += 2;
    else if (body.has(w)) score += 1;
  }
  return score;
}

/** A match must score at least this much (one title word, or two body words). */
export const MIN_SCORE = 2;
const CANDIDATES = 200;
const EXCERPT = 600;

/**
 * The deterministic default: the best-matching published KB article of the tenant (ties: most
 * recently updated, then smallest id), answered with its title, an excerpt and its url.
 */
export const kbAnswerer: Answerer = {
  async answer({ db, tenantId, message }) {
    const question = words(message.body);
    if (question.size === 0) return null;
    const articles = await publishedArticles(db, tenantId, CANDIDATES);
    let best: (typeof articles)[number] | null = null;
    let bestScore = 0;
    for (const a of articles) {
      const s = scoreArticle(question, a);
      if (s > bestScore) {
        best = a;
        bestScore = s;
      }
    }
    if (!best || bestScore < MIN_SCORE) return null;
    const excerpt = best.body.length > EXCERPT ? `${best.body.slice(0, EXCERPT).trimEnd()}…` : best.body;
    const parts = [best.title, excerpt.trim(), best.url ? `Read more: ${best.url}` : ''].filter(Boolean);
    return { body: parts.join('\n\n'), content_type: 'text' };
  },
};

/** The request's answerer: the runtime's, else the knowledge base's. */
export const answererOf = (services: Pick<Services, 'answerer'>): Answerer => services.answerer ?? kbAnswerer;
