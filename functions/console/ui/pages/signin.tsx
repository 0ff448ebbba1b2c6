/** @jsxImportSource hono/jsx/dom */
// Signed-out pages: sign in, accept an invitation, forgotten password. They call /api/v1/auth/*
// with no credential; a success signs in (session.ts).
import { useRef, useState } from 'hono/jsx/dom';
import { homePage } from '../access';
import { ErrorText, LoadError, Time, useLoad } from '../components';
import { type InvitePreview, previewInvitation } from '../invitations';
import { navigate } from '../router';
import { detailOf, signIn, signOut } from '../session';

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

/** The tenant id of the last sign-in that needed one, offered again (an id, not a secret). */
const LAST_TENANT_KEY = 'console.lastTenantId';
const INVALID_LOGIN = 'Invalid email or password';

/** Email, password and (for members of several tenants) the tenant; signs in on submit. */
export function SignInForm() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState(localStorage.getItem(LAST_TENANT_KEY) ?? '');
  const [several, setSeveral] = useState(tenant !== '');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const passwordField = useRef<HTMLInputElement>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    const tenantId = tenant.trim() || undefined;
    try {
      await signIn(email.trim(), password, tenantId);
      if (tenantId) localStorage.setItem(LAST_TENANT_KEY, tenantId);
      else localStorage.removeItem(LAST_TENANT_KEY);
    } catch (err) {
      const message = (err as Error).message;
      // the API answers a member of several tenants who gave none like any failure (no oracle for
      // the password); say what else it can mean, and open the field
      const hint = message === INVALID_LOGIN && !tenantId;
      setError(
        hint ? `${message}. If your address belongs to several tenants, give the tenant ID too.` : message,
      );
      if (hint) setSeveral(true);
      setBusy(false);
      // the disabled button dropped focus to <body>: back to the field to retype
      passwordField.current?.focus();
      passwordField.current?.select();
    }
  };
  return (
    <form onSubmit={submit} class="stack">
      <label for="email">Email</label>
      <input
        id="email"
        type="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e: Event) => setEmail(value(e))}
      />
      <label for="password">Password</label>
      <input
        id="password"
        ref={passwordField}
        type="password"
        autocomplete="current-password"
        required
        aria-describedby={error ? 'sign-in-error' : undefined}
        value={password}
        onInput={(e: Event) => setPassword(value(e))}
      />
      <details open={several} onToggle={(e: Event) => setSeveral((e.target as HTMLDetailsElement).open)}>
        <summary>Member of several tenants?</summary>
        <label for="tenant">Tenant ID</label>
        <input id="tenant" placeholder="ten_…" value={tenant} onInput={(e: Event) => setTenant(value(e))} />
      </details>
      <ErrorText message={error} id="sign-in-error" />
      <button type="submit" class="primary wide" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
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

export function AcceptInvitePage() {
  const [token] = useState(linkToken);
  const preview = useLoad(
    () => (token ? previewInvitation(token) : Promise.reject(new Error(NO_TOKEN))),
    [token],
  );
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    const res = await fetch('/api/v1/auth/accept-invite', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, password, ...(name.trim() ? { name: name.trim() } : {}) }),
    });
    if (!res.ok) return setError(await detailOf(res));
    forgetLinkToken();
    setDone(true);
  };
  if (done)
    return (
      <Card title="You're in" intro="Your password is set. Sign in with your email and the new password.">
        <button type="button" class="primary wide" onClick={() => navigate('/')}>
          Continue to sign in
        </button>
      </Card>
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
      <form onSubmit={submit} class="stack">
        <label for="invite-name">Your name (optional)</label>
        <input
          id="invite-name"
          autocomplete="name"
          maxLength={200}
          value={name}
          onInput={(e: Event) => setName(value(e))}
        />
        <NewPasswordField id="new-password" label="Password" value={password} onInput={setPassword} />
        <ErrorText message={error} />
        <button type="submit" class="primary wide">
          Set password
        </button>
      </form>
    </Card>
  );
}

const NO_TOKEN = 'This link has no invitation token. Open the link from the email again.';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const res = await fetch('/api/v1/auth/password-reset', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: email.trim() }),
    });
    if (!res.ok) return setError(await detailOf(res));
    setSent(true);
  };
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
        <form onSubmit={submit} class="stack">
          <label for="reset-email">Email</label>
          <input
            id="reset-email"
            type="email"
            required
            value={email}
            onInput={(e: Event) => setEmail(value(e))}
          />
          <ErrorText message={error} />
          <button type="submit" class="primary wide">
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
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const res = await fetch('/api/v1/auth/password-reset/confirm', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, password }),
    });
    if (!res.ok) return setError(await detailOf(res));
    forgetLinkToken();
    setDone(true);
  };
  return (
    <Card title="Choose a new password" intro={done ? 'Done. Sign in with the new password.' : undefined}>
      {token || done ? null : (
        <ErrorText message="This link has no reset token. Open the link from the email again, or ask for a new one." />
      )}
      {done ? (
        <button type="button" class="primary wide" onClick={() => navigate('/')}>
          Continue to sign in
        </button>
      ) : (
        <form onSubmit={submit} class="stack">
          <NewPasswordField id="reset-password" label="New password" value={password} onInput={setPassword} />
          <ErrorText message={error} />
          <button type="submit" class="primary wide" disabled={!token}>
            Set password
          </button>
        </form>
      )}
    </Card>
  );
}
