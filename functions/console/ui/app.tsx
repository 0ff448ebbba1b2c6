/** @jsxImportSource hono/jsx/dom */
import type { FC } from 'hono/jsx';
import { useEffect, useState } from 'hono/jsx/dom';
import { homePage } from './access';
import { loadMe } from './api';
import { Badge, Modal, PageHead, useLoad } from './components';
import { AuditPage } from './pages/audit';
import { ConversationPage } from './pages/conversation';
import { ConversationsPage } from './pages/conversations';
import { KeysPage } from './pages/keys';
import { SavedRepliesPage } from './pages/saved-replies';
import { SearchPage } from './pages/search';
import {
  AcceptInvitePage,
  AlreadySignedInPage,
  ForgotPasswordPage,
  ResetPasswordPage,
  SignInForm,
  SignInPage,
} from './pages/signin';
import { SlaPage } from './pages/sla';
import { TeamPage } from './pages/team';
import { TeamsPage } from './pages/teams';
import { TicketPage } from './pages/ticket';
import { TicketFieldsPage } from './pages/ticket-fields';
import { UsagePage } from './pages/usage';
import { WebhookDetailPage } from './pages/webhook-detail';
import { WebhooksPage } from './pages/webhooks';
import { redirect, useRoute } from './router';
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
  { path: '/search', label: 'Search', page: SearchPage },
  { path: '/conversations', label: 'Conversations', page: ConversationsPage },
  { path: '/teams', label: 'Teams', page: TeamsPage },
  { path: '/saved-replies', label: 'Saved replies', page: SavedRepliesPage },
  { path: '/ticket-fields', label: 'Ticket fields', page: TicketFieldsPage },
  { path: '/sla', label: 'SLA', page: SlaPage },
] as const;

/** Pages of one record: path pattern -> the navigation item it belongs under, and the page. */
const RECORD_PAGES = [
  { pattern: /^\/webhooks\/([^/]+)$/, under: '/webhooks', page: WebhookDetailPage },
  { pattern: /^\/tickets\/([^/]+)$/, under: '/search', page: TicketPage },
  { pattern: /^\/conversations\/([^/]+)$/, under: '/conversations', page: ConversationPage },
] as const;

/** Pages reached from an emailed link or while signed out. */
const SIGNED_OUT_PAGES: Record<string, FC> = {
  '/accept-invite': AcceptInvitePage,
  '/forgot-password': ForgotPasswordPage,
  '/reset-password': ResetPasswordPage,
};

function NotFoundPage() {
  return (
    <section aria-labelledby="page-title">
      <PageHead title="Page not found" intro="There is no console page at this address." />
      <a href={`/console${homePage().path}`}>Go to {homePage().label}</a>
    </section>
  );
}

/** The tenant's name and the user's email (GET /api/v1/auth/me, any role); the ids until they load. */
function WhoAmI(props: { who: Identity }) {
  const { who } = props;
  const names = useLoad(async () => {
    const me = await loadMe(who).catch(() => null);
    return {
      email: me?.user.email ?? undefined,
      tenant: me?.tenant.name,
      environment: me?.tenant.environment,
    };
  }, [who.userId, who.tenantId]);
  return (
    <div class="who-text">
      <div class={names.data?.tenant ? 'small tenant' : 'mono small tenant'} title={`Tenant ${who.tenantId}`}>
        {names.data?.tenant ?? who.tenantId}
        {/* a sandbox's keys, data and mails are for trying things out: say so on every page */}
        {names.data?.environment === 'sandbox' ? <Badge tone="warn">sandbox</Badge> : null}
      </div>
      <div class="small muted">
        <span class="email">{names.data?.email ?? who.userId}</span> ·{' '}
        {who.role === 'tenant_admin' ? 'admin' : who.role}
      </div>
    </div>
  );
}

function Shell(props: { who: Identity; path: string }) {
  const record = RECORD_PAGES.map((r) => ({ ...r, id: props.path.match(r.pattern)?.[1] })).find((r) => r.id);
  const current = PAGES.find((p) => (record ? p.path === record.under : props.path === p.path));
  const Page = current?.page;
  const Record = record?.page;
  useEffect(() => {
    document.title = `${current?.label ?? 'Page not found'} · Support Platform`;
    // after a navigation, focus moves to the new page's title (or its main region while it loads)
    (document.getElementById('page-title') ?? document.getElementById('main'))?.focus();
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
          <WhoAmI who={props.who} />
          <button type="button" class="sign-out" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" class="content" tabIndex={-1}>
        {Record && record.id ? (
          <Record id={decodeURIComponent(record.id)} />
        ) : Page ? (
          <Page />
        ) : (
          <NotFoundPage />
        )}
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
      if (next) setLost(null);
    });
    // a reload in this tab: the refresh token in sessionStorage brings the session back
    void refreshSession().finally(() => setBooting(false));
    return off;
  }, []);

  // signed in at /console/: the home page, with its navigation item current
  const home = (who ?? lost) && (path === '/' || path === '');
  useEffect(() => {
    if (home) redirect(homePage().path);
  }, [home]);

  const SignedOut = SIGNED_OUT_PAGES[path];
  if (booting && !who) return <p class="boot muted">Loading…</p>;
  // an emailed link opened in a signed-in tab: say so and offer to sign out, instead of dropping it
  if (SignedOut) return who ? <AlreadySignedInPage path={path} /> : <SignedOut />;
  const shown = who ?? lost;
  if (!shown) return <SignInPage />;
  // one tree whether or not the session is live, so the page keeps its state under the dialog
  return (
    <>
      <Shell who={shown} path={path} />
      {who ? null : (
        // required: Escape must not throw away the page this dialog promises to keep
        <Modal title="Your session ended" onClose={() => undefined} required>
          <div class="modal-body">
            <p class="muted">Sign in again to carry on where you were; nothing on the page is lost.</p>
            <SignInForm />
          </div>
        </Modal>
      )}
    </>
  );
}
