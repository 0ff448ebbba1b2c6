/** @jsxImportSource hono/jsx/dom */
// Small building blocks shared by the pages. Every value is rendered as a text node or an attribute
// (JSX escapes both); no raw HTML is ever written.
import type { Child } from 'hono/jsx';
import { useCallback, useEffect, useId, useRef, useState } from 'hono/jsx/dom';
import { type Action, whyNot } from './access';

/** Loads once (and again on `reload()`): `{data, error, loading}`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (e: Error) => live && setState({ error: e.message, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** A modal on the native <dialog>: focus moves in and is trapped, Escape closes, focus returns. */
export function Modal(props: { title: string; onClose: () => void; children: Child; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  // unique: a dialog can open over another (the session-ended sign-in over an edit)
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const onClose = () => props.onClose();
    dialog.addEventListener('close', onClose);
    return () => {
      dialog.removeEventListener('close', onClose);
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog ref={ref} class={props.wide ? 'modal wide' : 'modal'} aria-labelledby={titleId}>
      <header class="modal-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={() => ref.current?.close()}>
          ×
        </button>
      </header>
      {props.children}
    </dialog>
  );
}

/** Asks before a destructive action; the action's error is shown in the dialog. */
export function Confirm(props: {
  title: string;
  message: Child;
  action: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError('');
    try {
      await props.onConfirm();
      props.onClose();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <div class="modal-body">
        <p>{props.message}</p>
        <ErrorText message={error} />
      </div>
      <footer class="modal-foot">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={run}>
          {props.action}
        </button>
      </footer>
    </Modal>
  );
}

export function ErrorText(props: { message?: string }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** A secret shown once: monospace, selectable, a copy button and the warning that it will not come back. */
export function SecretOnce(props: { label: string; secret: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.secret);
    setCopied(true);
  };
  return (
    <div class="secret">
      <p class="warning" role="note">
        <strong>Copy this {props.what} now.</strong> It is shown only once; we store only a hash
        {props.what === 'signing secret' ? ' (encrypted)' : ''} and cannot show it again.
      </p>
      <label for="secret-value">{props.label}</label>
      <div class="copy-row">
        <input id="secret-value" class="mono" readonly value={props.secret} data-testid="secret" />
        <button type="button" class="primary" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <span class="sr-live" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </div>
  );
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536000],
  ['month', 2592000],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function ago(iso: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of STEPS)
    if (Math.abs(seconds) >= size || unit === 'second')
      return relative.format(Math.round(seconds / size), unit);
  return iso;
}

/** A time as "3 minutes ago", the exact UTC instant in its title and datetime. */
export function Time(props: { iso: string | null | undefined; empty?: string }) {
  if (!props.iso) return <span class="muted">{props.empty ?? '—'}</span>;
  return (
    <time dateTime={props.iso} title={new Date(props.iso).toUTCString()}>
      {ago(props.iso)}
    </time>
  );
}

export function Badge(props: { tone: 'ok' | 'warn' | 'bad' | 'neutral'; children: Child }) {
  return <span class={`badge ${props.tone}`}>{props.children}</span>;
}

export function PageHead(props: { title: string; intro?: Child; actions?: Child }) {
  return (
    <div class="page-head">
      <div>
        <h1>{props.title}</h1>
        {props.intro ? <p class="muted">{props.intro}</p> : null}
      </div>
      <div class="actions">{props.actions}</div>
    </div>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="muted" aria-busy="true">
      Loading {props.what}…
    </p>
  );
}

export function Empty(props: { children: Child }) {
  return <div class="empty">{props.children}</div>;
}

/** A page the signed-in role cannot use: it says so, instead of showing the API's 403. */
export function NotForYourRole(props: { title: string; action: Action }) {
  return (
    <section aria-labelledby="page-title">
      <PageHead title={props.title} />
      <p class="notice role-note" role="note">
        {whyNot(props.action)} Ask an admin of this tenant if you need it.
      </p>
    </section>
  );
}
