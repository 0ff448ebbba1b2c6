// Client-side routes under /console (the server answers every /console/* path with the same page).
import { useEffect, useState } from 'hono/jsx/dom';

export const BASE = '/console';

export function navigate(path: string) {
  history.pushState(null, '', `${BASE}${path}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Replaces the current entry (a redirect: Back does not return to it). */
export function redirect(path: string) {
  history.replaceState(null, '', `${BASE}${path}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The path inside the console (`/keys`, `/webhooks/wh_…`), kept in step with history. */
export function useRoute(): string {
  const read = () => location.pathname.slice(BASE.length) || '/';
  const [path, setPath] = useState(read());
  useEffect(() => {
    const on = () => setPath(read());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return path;
}

/** Left clicks (and Enter) on in-console links navigate without a reload; modified clicks keep the browser's meaning. */
export function interceptLinks(root: HTMLElement) {
  root.addEventListener('click', (e) => {
    const a = (e.target as HTMLElement).closest('a');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
      return;
    // an in-page link (the skip link): focus its target, with no history entry for it
    const fragment = a.getAttribute('href');
    if (fragment?.startsWith('#')) {
      e.preventDefault();
      document.getElementById(fragment.slice(1))?.focus();
      return;
    }
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || a.target) return;
    e.preventDefault();
    navigate(url.pathname.slice(BASE.length) + url.search);
  });
}
