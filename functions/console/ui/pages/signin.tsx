/** @jsxImportSource hono/jsx/dom */
// Signed-out pages: sign in, accept an invitation, forgotten password. They call /api/v1/auth/*
// with no credential; a success signs in (session.ts).
import { useEffect, useRef, useState } from 'hono/jsx/dom';
import { homePage } from '../access';
import { ErrorText, LoadError, Time, useLoad, useSubmit } from '../components';
import { type InvitePreview, previewInvitation } from '../invitations';
import { redirect } from '../router';
import {
  adopt,
  ChooseTenant,
  postSignedOut,
  requestSession,
  signIn,
  signOut,
  type TenantChoice,
  type TokenPair,
} from '../session';

/** The API's password policy (functions/auth/schemas.ts NewPassword), stated next to the field. */
const PASSWORD_MIN = 12;
const PASSWORD_MAX = 200;
const PASSWORD_RULE = `At least ${PASSWORD_MIN} characters. A long phrase is easier to remember than symbols.`;

function Card(props: { title: string; intro?: string; children: unknown }) {
  return (
    <main class="auth-page">
      <div class="auth-card">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          Support Platform
        </div>
        <h1 id="page-title">{props.title}</h1>
        {props.intro ? <p class="muted">{props.intro}</p> : null}
        {props.children as never}
      </div>
    </main>
  );
}

/**
 * The token of an emailed link (`?token=` or `#token=`), taken out of the address bar at once and
 * kept in this tab's sessionStorage, per page: a reload, or signing a signed-in tab out to use it,
 * finds it again. It goes when the link has been used.
 */
const LINK_KEY = (path: string) => `console.link${path}`;
function linkToken(): string {
  const url = new URL(location.href);
  const token = url.searchParams.get('token') ?? new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
  if (token) {
    history.replaceState(null, '', url.pathname);
    sessionStorage.setItem(LINK_KEY(url.pathname), token);
  }
  return sessionStorage.getItem(LINK_KEY(url.pathname)) ?? '';
}
const forgetLinkToken = () => sessionStorage.removeItem(LINK_KEY(location.pathname));

const value = (e: Event) => (e.target as HTMLInputElement).value;

/** The tenant last chosen on this browser, picked first when the choice is offered again (an id, not a secret). */
const LAST_TENANT_KEY = 'console.lastTenantId';

/**
 * The choice the API asks for when the password is right in several tenants (its 409): one radio
 * per tenant, by name with its id, the last one used picked first.
 */
function TenantPicker(props: { tenants: TenantChoice[]; picked: string; onPick: (id: string) => void }) {
  return (
    <fieldset class="tenant-choice">
      <legend>Which tenant?</legend>
      {props.tenants.map((t) => (
        <label key={t.id} class="check">
          <input
            type="radio"
            name="tenant"
            value={t.id}
            checked={props.picked === t.id}
            onChange={() => props.onPick(t.id)}
          />
          <span>
            {t.name} <span class="muted small mono">{t.id}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** Email and password; when the address has accounts in several tenants, the tenant too. Signs in on submit. */
export function SignInForm() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  /** the tenants the API offered for this address (its 409), until the address changes */
  const [tenants, setTenants] = useState<TenantChoice[]>([]);
  const [tenant, setTenant] = useState('');
  const passwordField = useRef<HTMLInputElement>(null);
  const form = useSubmit(
    async () => {
      const tenantId = tenants.length > 0 ? tenant : undefined;
      if (tenants.length > 0 && !tenantId) throw new Error('Choose the tenant to sign in to.');
      try {
        await signIn(email.trim(), password, tenantId);
      } catch (err) {
        if (!(err instanceof ChooseTenant)) throw err;
        const last = localStorage.getItem(LAST_TENANT_KEY) ?? '';
        setTenants(err.tenants);
        setTenant(err.tenants.some((t) => t.id === last) ? last : '');
        // not an error: the next step of this sign-in, said where the choice is
        return;
      }
      if (tenantId) localStorage.setItem(LAST_TENANT_KEY, tenantId);
    },
    {
      // the disabled button dropped focus to <body>: back to the field to retype
      onError: () => {
        passwordField.current?.focus();
        passwordField.current?.select();
      },
    },
  );
  return (
    <form onSubmit={form.submit} class="stack">
      <label for="email">Email</label>
      <input
        id="email"
        type="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e: Event) => {
          setEmail(value(e));
          // another address: the tenants offered were this one's, and the error was this one's
          setTenants([]);
          form.clear();
        }}
      />
      <label for="password">Password</label>
      <input
        id="password"
        ref={passwordField}
        type="password"
        autocomplete="current-password"
        required
        aria-describedby={form.error ? 'sign-in-error' : undefined}
        value={password}
        onInput={(e: Event) => {
          setPassword(value(e));
          // the error went with the password typed before: it must not stay beside the new one
          form.clear();
        }}
      />
      {tenants.length > 0 ? (
        <>
          <p class="notice" role="status">
            This address has accounts in several tenants. Choose the one to sign in to.
          </p>
          <TenantPicker tenants={tenants} picked={tenant} onPick={setTenant} />
        </>
      ) : null}
      <ErrorText message={form.error} id="sign-in-error" />
      <button type="submit" class="primary wide" disabled={form.busy}>
        {form.busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

export function SignInPage() {
  return (
    <Card title="Sign in">
      <SignInForm />
      <p class="small">
        <a href="/console/forgot-password">Forgot your password?</a>
      </p>
    </Card>
  );
}

/** Which tenant and address the invitation is for, or why it cannot be used. */
function InviteFor(props: { preview: ReturnType<typeof useLoad<InvitePreview>> }) {
  const { data, error, status } = props.preview;
  if (status === 404)
    return (
      <ErrorText message="This invitation is no longer valid: it was used, revoked, replaced by a newer one or has expired. Ask an admin of the tenant for a new one." />
    );
  if (error) return <LoadError load={props.preview} />;
  if (!data) return <p class="muted">Checking the invitation…</p>;
  return (
    <p class="invite-for">
      Join <strong>{data.tenant.name}</strong> as <strong>{data.email}</strong> (
      {data.role === 'tenant_admin' ? 'admin' : data.role}). The invitation expires{' '}
      <Time iso={data.expires_at} />.
    </p>
  );
}

/**
 * A link's form whose answer is a session: the link is spent, and the session it answered with is
 * used, not a second sign-in. Leaving for the console's root and adopting the session in one step
 * (one render) opens the home page of the new session's role; adopted here first, this signed-out
 * page would ask to sign out.
 */
function enterConsole(send: () => Promise<TokenPair>) {
  return async () => {
    const pair = await send();
    forgetLinkToken();
    redirect('/');
    adopt(pair);
  };
}

export function AcceptInvitePage() {
  const [token] = useState(linkToken);
  const preview = useLoad(
    () => (token ? previewInvitation(token) : Promise.reject(new Error(NO_TOKEN))),
    [token],
  );
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  // the name the inviter gave, offered to keep or change (never over one already typed)
  const invitedName = preview.data?.name ?? '';
  useEffect(() => {
    if (invitedName) setName((typed) => typed || invitedName);
  }, [invitedName]);
  const form = useSubmit(
    enterConsole(() =>
      requestSession('/api/v1/auth/accept-invite', {
        token,
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
      }),
    ),
  );
  if (!token || preview.status === 404)
    return (
      <Card title="Accept your invitation">
        {token ? <InviteFor preview={preview} /> : <ErrorText message={NO_TOKEN} />}
      </Card>
    );
  return (
    <Card title="Accept your invitation" intro="Choose a password to finish setting up your account.">
      <InviteFor preview={preview} />
      <form onSubmit={form.submit} class="stack">
        <label for="invite-name">Your name (optional)</label>
        <input
          id="invite-name"
          autocomplete="name"
          maxLength={200}
          value={name}
          onInput={(e: Event) => {
            setName(value(e));
            form.clear();
          }}
        />
        <NewPasswordField
          id="new-password"
          label="Password"
          value={password}
          onInput={(v) => {
            setPassword(v);
            form.clear();
          }}
        />
        <ErrorText message={form.error} />
        <button type="submit" class="primary wide" disabled={form.busy}>
          {form.busy ? 'Setting up your account…' : 'Set password and sign in'}
        </button>
      </form>
    </Card>
  );
}

const NO_TOKEN = 'This link has no invitation token. Open the link from the email again.';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const form = useSubmit(async () => {
    await postSignedOut('/api/v1/auth/password-reset', { email: email.trim() });
    setSent(true);
  });
  return (
    <Card
      title="Reset your password"
      intro={
        sent
          ? 'If that address has an account, a reset link is on its way.'
          : 'We email you a link to choose a new one.'
      }
    >
      {sent ? null : (
        <form onSubmit={form.submit} class="stack">
          <label for="reset-email">Email</label>
          <input
            id="reset-email"
            type="email"
            required
            value={email}
            onInput={(e: Event) => {
              setEmail(value(e));
              form.clear();
            }}
          />
          <ErrorText message={form.error} />
          <button type="submit" class="primary wide" disabled={form.busy}>
            Send reset link
          </button>
        </form>
      )}
      <p class="small">
        <a href="/console/">Back to sign in</a>
      </p>
    </Card>
  );
}

/** A new password with the policy stated up front, so the API's 422 is rarely the first word. */
function NewPasswordField(props: { id: string; label: string; value: string; onInput: (v: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="password"
        autocomplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        aria-describedby={`${props.id}-rule`}
        value={props.value}
        onInput={(e: Event) => props.onInput(value(e))}
      />
      <p id={`${props.id}-rule`} class="muted small hint">
        {PASSWORD_RULE}
      </p>
    </>
  );
}

/** What an emailed link is for, when it is opened in a tab that is already signed in. */
const LINK_PURPOSE: Record<string, string> = {
  '/accept-invite': 'accepts an invitation for a new account',
  '/reset-password': 'sets a new password for an account',
  '/forgot-password': 'asks for a password reset link',
};

/** An emailed link in a signed-in tab: keep its token, say why it cannot be used yet, offer to sign out. */
export function AlreadySignedInPage(props: { path: string }) {
  useState(linkToken); // take the token out of the address bar now, kept for after signing out
  return (
    <Card
      title="You are signed in"
      intro={`This page ${LINK_PURPOSE[props.path] ?? 'is for signed-out use'}. Sign out of this tab first to use it; your current session ends.`}
    >
      <div class="stack">
        <button type="button" class="primary wide" onClick={() => void signOut()}>
          Sign out and continue
        </button>
        <p class="small">
          <a href={`/console${homePage().path}`}>Stay signed in and go to the console</a>
        </p>
      </div>
    </Card>
  );
}

export function ResetPasswordPage() {
  const [token] = useState(linkToken);
  const [password, setPassword] = useState('');
  const form = useSubmit(
    enterConsole(() => requestSession('/api/v1/auth/password-reset/confirm', { token, password })),
  );
  return (
    <Card title="Choose a new password">
      {token ? null : (
        <ErrorText message="This link has no reset token. Open the link from the email again, or ask for a new one." />
      )}
      <form onSubmit={form.submit} class="stack">
        <NewPasswordField
          id="reset-password"
          label="New password"
          value={password}
          onInput={(v) => {
            setPassword(v);
            form.clear();
          }}
        />
        <ErrorText message={form.error} />
        <button type="submit" class="primary wide" disabled={!token || form.busy}>
          Set password and sign in
        </button>
      </form>
    </Card>
  );
}
