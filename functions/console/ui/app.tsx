/** @jsxImportSource hono/jsx/dom */
import type { FC } from 'hono/jsx';
import { useEffect, useState } from 'hono/jsx/dom';
import { Modal } from './components';
import { AuditPage } from './pages/audit';
import { KeysPage } from './pages/keys';
import {
  AcceptInvitePage,
  ForgotPasswordPage,
  ResetPasswordPage,
  SignInForm,
  SignInPage,
} from './pages/signin';
import { TeamPage } from './pages/team';
import { UsagePage } from './pages/usage';
import { WebhookDetailPage, WebhooksPage } from './pages/webhooks';
import { navigate, useRoute } from './router';
import {
  currentIdentity,
  type Identity,
  onSessionChange,
  refreshSession,
  signingOut,
  signOut,
} from './session';

/** Signed-in pages: path -> page, in the order of the navigation. */
const PAGES = [
  { path: '/keys', label: 'API keys', page: KeysPage },
  { path: '/webhooks', label: 'Webhooks', page: WebhooksPage },
  { path: '/team', label: 'Team', page: TeamPage },
  { path: '/audit', label: 'Audit log', page: AuditPage },
  { path: '/usage', label: 'Usage', page: UsagePage },
] as const;

/** Pages reached from an emailed link or while signed out. */
const SIGNED_OUT_PAGES: Record<string, FC> = {
  '/accept-invite': AcceptInvitePage,
  '/forgot-password': ForgotPasswordPage,
  '/reset-password': ResetPasswordPage,
};

function Shell(props: { who: Identity; path: string }) {
  const detail = props.path.match(/^\/webhooks\/([^/]+)$/)?.[1];
  const current = PAGES.find((p) => props.path === p.path || props.path.startsWith(`${p.path}/`));
  const Page = current?.page;
  useEffect(() => {
    document.title = `${current?.label ?? 'Console'} · Support Platform`;
    document.getElementById('page-title')?.focus();
  }, [props.path]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          Support Platform
        </div>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={`/console${p.path}`} aria-current={current?.path === p.path ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <div class="mono small" title="Tenant">
            {props.who.tenantId}
          </div>
          <div class="small muted">
            {props.who.userId} · {props.who.role === 'tenant_admin' ? 'admin' : props.who.role}
          </div>
          <button type="button" class="wide" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" class="content" tabIndex={-1}>
        {detail ? <WebhookDetailPage id={decodeURIComponent(detail)} /> : Page ? <Page /> : <KeysPage />}
      </main>
    </div>
  );
}

export function App() {
  const path = useRoute();
  const [who, setWho] = useState<Identity | null>(currentIdentity());
  /** who was signed in when the session ended on its own: their page stays, under a sign-in dialog */
  const [lost, setLost] = useState<Identity | null>(null);
  const [booting, setBooting] = useState(true);

  useEffect(() => {
    let before = currentIdentity();
    const off = onSessionChange((next) => {
      if (before && !next && !signingOut()) setLost(before);
      before = next;
      setWho(next);
      if (next) {
        setLost(null);
        if (SIGNED_OUT_PAGES[location.pathname.slice('/console'.length)]) navigate('/keys');
      }
    });
    // a reload in this tab: the refresh token in sessionStorage brings the session back
    void refreshSession().finally(() => setBooting(false));
    return off;
  }, []);

  const SignedOut = SIGNED_OUT_PAGES[path];
  if (SignedOut && !who) return <SignedOut />;
  if (booting && !who) return <p class="boot muted">Loading…</p>;
  const shown = who ?? lost;
  if (!shown) return <SignInPage />;
  // one tree whether or not the session is live, so the page keeps its state under the dialog
  return (
    <>
      <Shell who={shown} path={path} />
      {who ? null : (
        <Modal title="Your session ended" onClose={() => setLost(null)}>
          <div class="modal-body">
            <p class="muted">Sign in again to carry on where you were; nothing on the page is lost.</p>
            <SignInForm />
          </div>
        </Modal>
      )}
    </>
  );
}
