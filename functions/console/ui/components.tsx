/** @jsxImportSource hono/jsx/dom */
// Small building blocks shared by the pages. Every value is rendered as a text node or an attribute
// (JSX escapes both); no raw HTML is ever written.
import type { Child } from 'hono/jsx';
import { useCallback, useEffect, useId, useRef, useState } from 'hono/jsx/dom';
import { type Action, allowed, whyNot } from './access';
import { SESSION_ENDED } from './errors';
import { currentIdentity, onSessionChange } from './session';

/** "1 delivery", "3 deliveries": every count the console shows. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Loads once (and again on `reload()`): `{data, error, requestId, status, loading}`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{
    data?: T;
    error?: string;
    requestId?: string;
    /** the refusal's HTTP status (0: no answer came) */
    status?: number;
    loading: boolean;
  }>({ loading: true });
  const [tick, setTick] = useState(0);
  // a load refused because the session ended runs again once the user signs back in
  const failedForSession = useRef(false);
  failedForSession.current = state.error === SESSION_ENDED;
  useEffect(
    () =>
      onSessionChange((who) => {
        if (who && failedForSession.current) setTick((t) => t + 1);
      }),
    [],
  );
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (e: Error & { requestId?: string; status?: number }) =>
        live && setState({ error: e.message, requestId: e.requestId, status: e.status, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/**
 * A load that failed: what went wrong, the request id to quote to support (the server's
 * X-Request-Id), and a retry. Nothing while the load is fine.
 */
export function LoadError(props: {
  load: { error?: string; requestId?: string; loading: boolean; reload: () => void };
}) {
  const { error, requestId, loading, reload } = props.load;
  if (!error || (error === SESSION_ENDED && currentIdentity())) return null;
  return (
    <div class="error-state" role="alert">
      <p class="error">{error}</p>
      {requestId ? (
        <p class="small muted">
          Request ID <code class="mono">{requestId}</code> — quote it if you contact support.
        </p>
      ) : null}
      <button type="button" onClick={reload} disabled={loading}>
        {loading ? 'Retrying…' : 'Retry'}
      </button>
    </div>
  );
}

/** Focus can go back to it: still on the page, and not in a dialog that has closed. */
const focusable = (el: Element | null): el is HTMLElement =>
  el instanceof HTMLElement && el !== document.body && el.isConnected && !el.closest('dialog:not([open])');

/**
 * A modal on the native <dialog>: focus moves in and is trapped, Escape closes, and focus returns to
 * the opener however it closes. `required`: Escape and × do not close it (the page under it needs it).
 */
export function Modal(props: {
  title: string;
  onClose: () => void;
  children: Child;
  wide?: boolean;
  required?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // unique: a dialog can open over another (the session-ended sign-in over an edit)
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    // the browser focuses the first control, the × of the header: the first field is where one
    // starts (or, in a confirmation, its first button)
    const first = dialog.querySelector<HTMLElement>(
      ':is(input:not([type=hidden]), select, textarea, button:not(.icon)):not([disabled])',
    );
    first?.focus();
    const onClose = () => props.onClose();
    const onCancel = (e: Event) => props.required && e.preventDefault();
    // Chromium closes anyway on a second Escape with no click between: open it again
    const reopen = () => props.required && dialog.isConnected && !dialog.open && dialog.showModal();
    dialog.addEventListener('close', props.required ? reopen : onClose);
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('close', props.required ? reopen : onClose);
      dialog.removeEventListener('cancel', onCancel);
      // closed by a button, the dialog is still modal here and the page inert: close it first
      if (dialog.open) dialog.close();
      // an opener inside a menu that has closed goes back to the menu's button
      const menu = opener instanceof Element ? opener.closest('details:not([open])') : null;
      const back = menu?.querySelector('summary') ?? opener;
      // the opener may be gone (a deleted row): then the page's title
      if (focusable(back)) back.focus();
      else if (!document.querySelector('dialog[open]')) document.getElementById('page-title')?.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class={props.wide ? 'modal wide' : 'modal'} aria-labelledby={titleId}>
      <header class="modal-head">
        <h2 id={titleId}>{props.title}</h2>
        {props.required ? null : (
          <button type="button" class="icon" aria-label="Close" onClick={() => ref.current?.close()}>
            ×
          </button>
        )}
      </header>
      {props.children}
    </dialog>
  );
}

/**
 * One form's submit, written once for every form of the console: busy while the action runs (the
 * submit button is disabled, so a double click sends once), the action's error after (its thrown
 * message: the API's detail, or a check the form makes before sending), and `clear` for an edit
 * that answers the last error. The action throws to refuse; what it does on success is its own.
 */
export function useSubmit(action: () => Promise<void>, options: { onError?: () => void } = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  // a success often closes the form (a dialog, the signed-out page): no state is set on it after
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  // a second click lands before the disabled button is drawn: the ref, not the state, says it runs
  const running = useRef(false);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setError('');
    try {
      await action();
    } catch (err) {
      if (!mounted.current) return;
      setError((err as Error).message);
      options.onError?.();
    } finally {
      running.current = false;
      if (mounted.current) setBusy(false);
    }
  };
  const clear = () => setError('');
  return { busy, error, submit, clear };
}

export type Submit = ReturnType<typeof useSubmit>;

/**
 * A dialog that is one form: the fields, then a footer with the error (in view, announced), Cancel
 * and the submit button, disabled while the submit runs. Any edit clears the last error: it goes
 * with its cause, until the next submit.
 */
export function FormDialog(props: {
  title: string;
  /** the form's id, which the footer's submit button names */
  id: string;
  form: Submit;
  /** the submit button's label */
  action: string;
  onClose: () => void;
  children: Child;
  danger?: boolean;
  wide?: boolean;
  /** a reason the form cannot be sent yet (nothing loaded to choose from) */
  disabled?: boolean;
}) {
  const { form } = props;
  return (
    <Modal title={props.title} onClose={props.onClose} wide={props.wide}>
      <form
        id={props.id}
        class="modal-body"
        onSubmit={form.submit}
        onInput={form.clear}
        onChange={form.clear}
      >
        {props.children}
      </form>
      <footer class="modal-foot">
        <DialogError message={form.error} />
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button
          type="submit"
          form={props.id}
          class={props.danger ? 'danger' : 'primary'}
          disabled={form.busy || props.disabled}
        >
          {props.action}
        </button>
      </footer>
    </Modal>
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
  const id = `confirm-${useId().replace(/[^\w-]/g, '')}`;
  const form = useSubmit(async () => {
    await props.onConfirm();
    props.onClose();
  });
  return (
    <FormDialog title={props.title} id={id} form={form} action={props.action} onClose={props.onClose} danger>
      <p>{props.message}</p>
    </FormDialog>
  );
}

export function ErrorText(props: { message?: string; id?: string }) {
  // the session came back: the error it caused is gone with it
  if (props.message === SESSION_ENDED && currentIdentity()) return null;
  return props.message ? (
    <p class="error" role="alert" id={props.id}>
      {props.message}
    </p>
  ) : null;
}

/**
 * A dialog's error, in its footer beside the buttons: always in view however long the form above
 * scrolls, announced (role=alert) and focused, so focus does not fall to the page when the submit
 * button was disabled under it.
 */
export function DialogError(props: { message?: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const shown = props.message && !(props.message === SESSION_ENDED && currentIdentity());
  useEffect(() => {
    if (shown) ref.current?.focus();
  }, [props.message]);
  return shown ? (
    <p class="error dialog-error" role="alert" tabIndex={-1} ref={ref}>
      {props.message}
    </p>
  ) : null;
}

/** Copies `text`; says so on the button and to screen readers. `label`: its accessible name. */
export function CopyButton(props: { text: string; label?: string; primary?: boolean }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <>
      <button
        type="button"
        class={props.primary ? 'primary' : 'copy'}
        onClick={copy}
        aria-label={props.label}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <span class="sr-live" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </>
  );
}

/** How each kind of secret is kept, said where it is shown once. */
const SECRET_KEEPING = {
  'API key': 'we keep only a hash of it',
  'signing secret': 'we keep it encrypted, to sign every delivery, and never show it again',
} as const;

/** A secret shown once: monospace, selectable, a copy button and the warning that it will not come back. */
export function SecretOnce(props: { label: string; secret: string; what: keyof typeof SECRET_KEEPING }) {
  return (
    <div class="secret">
      <p class="warning" role="note">
        <strong>Copy this {props.what} now.</strong> It is shown only once: {SECRET_KEEPING[props.what]}.
      </p>
      <label for="secret-value">{props.label}</label>
      <div class="copy-row">
        <input id="secret-value" class="mono" readonly value={props.secret} data-testid="secret" />
        <CopyButton text={props.secret} primary />
      </div>
    </div>
  );
}

/**
 * A row's actions behind one button: a table keeps its width at a laptop's size, and a card on a
 * phone shows one button. Picking an item closes the menu.
 */
export function RowMenu(props: {
  label: string;
  items: { label: string; danger?: boolean; run: () => void }[];
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  if (props.items.length === 0) return null;
  // Escape closes an open menu, as it closes a dialog, and leaves focus on its button
  const onKeyDown = (e: KeyboardEvent) => {
    const menu = ref.current;
    if (e.key !== 'Escape' || !menu?.open) return;
    e.preventDefault();
    menu.open = false;
    menu.querySelector('summary')?.focus();
  };
  return (
    <details class="row-menu" ref={ref} onKeyDown={onKeyDown}>
      <summary aria-label={props.label}>Actions</summary>
      <div class="row-menu-items">
        {props.items.map((item) => (
          <button
            key={item.label}
            type="button"
            class={item.danger ? 'danger-text' : undefined}
            onClick={() => {
              if (ref.current) ref.current.open = false;
              item.run();
            }}
          >
            {item.label}
          </button>
        ))}
      </div>
    </details>
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

/** One clock for every <Time>: relative times move on while the page stays open. */
const TICK_MS = 15_000;
const clockListeners = new Set<() => void>();
let clock: ReturnType<typeof setInterval> | undefined;
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    clockListeners.add(tick);
    clock ??= setInterval(() => {
      for (const l of clockListeners) l();
    }, TICK_MS);
    return () => {
      clockListeners.delete(tick);
      if (clockListeners.size === 0) clock = void clearInterval(clock);
    };
  }, []);
  return now;
}

/** A time as "3 minutes ago" (kept current), the exact UTC instant in its title and datetime. */
export function Time(props: { iso: string | null | undefined; empty?: string }) {
  const now = useNow();
  if (!props.iso) return <span class="muted">{props.empty ?? '—'}</span>;
  return (
    <time dateTime={props.iso} title={new Date(props.iso).toUTCString()}>
      {ago(props.iso, now)}
    </time>
  );
}

/** After these an address or URL may wrap: `@`, `/`, `.`, `?`, `&`, `=`, `-`, `_`, `#`, `:`. */
const BREAK_AFTER = /([@/.?&=\-_#:])/;

/**
 * Text with long emails, URLs or ids in it, allowed to wrap only after their punctuation (a <wbr>
 * there), so a narrow cell breaks `ops@acme.` / `example` and never in the middle of a word.
 */
export function Breakable(props: { text: string }) {
  return (
    <span class="breakable">
      {props.text
        .split(BREAK_AFTER)
        .map((part, i) => (BREAK_AFTER.test(part) ? [part, <wbr key={i} />] : part))}
    </span>
  );
}

export function Badge(props: { tone: 'ok' | 'warn' | 'bad' | 'neutral'; children: Child }) {
  return <span class={`badge ${props.tone}`}>{props.children}</span>;
}

/**
 * A page's table of records: scrolls sideways inside its own box when wide, turns into one card per
 * row on a narrow screen (`cards-narrow`: each cell shows its `data-label`), and when `actions` is
 * set ends with a column for each row's actions, named for screen readers only.
 */
export function RecordsTable(props: { name: string; columns: string[]; actions?: boolean; children: Child }) {
  return (
    <div class="table-wrap">
      <table class={`${props.name} cards-narrow`}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col">{c}</th>
            ))}
            {props.actions ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

export function PageHead(props: { title: string; intro?: Child; actions?: Child }) {
  return (
    <div class="page-head">
      <div>
        {/* focused after each navigation (app.tsx), and what every page's aria-labelledby names */}
        <h1 id="page-title" tabIndex={-1}>
          {props.title}
        </h1>
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

/** Offset paging: "1–50 of 120" between Newer/Older (or Previous/Next) buttons. */
export function Pager(props: {
  offset: number;
  shown: number;
  total: number;
  size: number;
  onMove: (offset: number) => void;
  labels?: [string, string];
}) {
  const [back, forward] = props.labels ?? ['Previous', 'Next'];
  if (props.total <= props.size && props.offset === 0) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        disabled={props.offset === 0}
        onClick={() => props.onMove(Math.max(0, props.offset - props.size))}
      >
        {back}
      </button>
      <span class="muted">
        {props.offset + 1}–{props.offset + props.shown} of {props.total}
      </span>
      <button
        type="button"
        disabled={props.offset + props.size >= props.total}
        onClick={() => props.onMove(props.offset + props.size)}
      >
        {forward}
      </button>
    </nav>
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

/** How many records a list page shows at once (the API's pages of 50). */
export const LIST_PAGE = 50;

/** What a list page changes about its records: its dialog, how it names and deletes one. */
export interface Editing<T> {
  /** who may change them (access.ts); anyone else reads the list and is told why they cannot */
  action: Action;
  /** the head's button, `New team` */
  newLabel: string;
  /** how the notices name a record: `Team` in "Team Support created." */
  noun: string;
  /** the record's name: in the notices and the row menu's label (`Actions for Support`) */
  name: (item: T) => string;
  /** the create (no item) or edit dialog; it calls `onSaved` with the API's answer */
  dialog: (
    item: T | undefined,
    on: { onClose: () => void; onSaved: (saved: T, created: boolean) => void },
  ) => Child;
  /** the delete confirmation: its title, what it says of the record, and the call */
  remove: { title: string; message: (item: T) => string; run: (item: T) => Promise<void> };
}

/** What a list page gives ListPage: its texts, how to read a page, its table and, if any, its editing. */
export interface ListPageProps<T> {
  title: string;
  intro: Child;
  /** the records, as in "Loading teams…" */
  what: string;
  load: (page: { limit: number; offset: number }) => Promise<{ items: T[]; total: number | null }>;
  /** the values the list is filtered by: a change reads the first page again */
  filters?: unknown[];
  /** controls between the head and the list (the filters) */
  toolbar?: Child;
  empty: Child;
  /** one page's table; `menu` gives a row's Actions cell, absent when the records cannot be changed */
  table: (items: T[], menu?: (item: T) => Child) => Child;
  editing?: Editing<T>;
}

/**
 * The scaffolding of a page of records: its head, the list a page of 50 at a time with its pager,
 * the loading, empty and failed states, and, with `editing`, the New button, each row's Actions
 * menu (Edit, Delete), the dialogs they open and the notice after. The page says only what is its
 * own: how to read a page, its table, and its dialog.
 */
export function ListPage<T extends { id: string }>(props: ListPageProps<T>) {
  const { editing } = props;
  const filters = JSON.stringify(props.filters ?? []);
  // the offset belongs to the filters it was reached under: new filters start at the first page
  const [at, setAt] = useState({ filters, offset: 0 });
  const offset = at.filters === filters ? at.offset : 0;
  const records = useLoad(() => props.load({ limit: LIST_PAGE, offset }), [offset, filters]);
  const [open, setOpen] = useState<T | 'new' | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const [notice, setNotice] = useState('');
  const manage = editing ? allowed(editing.action) : false;
  const list = records.data?.items;
  const menu =
    editing && manage
      ? (item: T) => (
          <EditMenu
            name={editing.name(item)}
            onEdit={() => setOpen(item)}
            onDelete={() => setDeleting(item)}
          />
        )
      : undefined;
  return (
    <section aria-labelledby="page-title">
      <ListHead
        title={props.title}
        intro={props.intro}
        editing={editing}
        manage={manage}
        notice={notice}
        onNew={() => setOpen('new')}
      />
      {props.toolbar}
      <LoadError load={records} />
      {records.loading && !list ? <Loading what={props.what} /> : null}
      {list && offset === 0 && list.length === 0 ? <Empty>{props.empty}</Empty> : null}
      {list && list.length > 0 ? (
        <>
          {props.table(list, menu)}
          <Pager
            offset={offset}
            shown={list.length}
            total={records.data?.total ?? 0}
            size={LIST_PAGE}
            onMove={(next) => setAt({ filters, offset: next })}
          />
        </>
      ) : null}
      {editing ? (
        <EditDialogs
          editing={editing}
          open={open}
          deleting={deleting}
          onClose={() => {
            setOpen(null);
            setDeleting(null);
          }}
          onDone={(item, done) => {
            setOpen(null);
            setNotice(`${editing.noun} ${editing.name(item)} ${done}.`);
            records.reload();
          }}
        />
      ) : null}
    </section>
  );
}

/** A list page's head: its title, the New button or why there is none, and the last change's notice. */
function ListHead<T>(props: {
  title: string;
  intro: Child;
  editing?: Editing<T>;
  manage: boolean;
  notice: string;
  onNew: () => void;
}) {
  const { editing } = props;
  return (
    <>
      <PageHead
        title={props.title}
        intro={props.intro}
        actions={
          props.manage ? (
            <button type="button" class="primary" onClick={props.onNew}>
              {editing?.newLabel}
            </button>
          ) : null
        }
      />
      {editing && !props.manage ? <p class="muted role-note">{whyNot(editing.action)}</p> : null}
      {editing ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
    </>
  );
}

/** The create or edit dialog and the delete confirmation of a list page, whichever is open. */
function EditDialogs<T>(props: {
  editing: Editing<T>;
  open: T | 'new' | null;
  deleting: T | null;
  onClose: () => void;
  /** a record was created, saved or deleted */
  onDone: (item: T, done: 'created' | 'saved' | 'deleted') => void;
}) {
  const { editing, open, deleting } = props;
  if (open)
    return editing.dialog(open === 'new' ? undefined : open, {
      onClose: props.onClose,
      onSaved: (saved, created) => props.onDone(saved, created ? 'created' : 'saved'),
    });
  if (!deleting) return null;
  return (
    <Confirm
      title={editing.remove.title}
      message={editing.remove.message(deleting)}
      action="Delete"
      onClose={props.onClose}
      onConfirm={async () => {
        await editing.remove.run(deleting);
        props.onDone(deleting, 'deleted');
      }}
    />
  );
}

/** A row's Actions cell on a list page: Edit and Delete. */
function EditMenu(props: { name: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <td class="row-actions">
      <RowMenu
        label={`Actions for ${props.name}`}
        items={[
          { label: 'Edit', run: props.onEdit },
          { label: 'Delete', danger: true, run: props.onDelete },
        ]}
      />
    </td>
  );
}
