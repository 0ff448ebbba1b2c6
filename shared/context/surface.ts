/**
 * Which credential a path takes, decided before any handler runs (spec: "Access surfaces",
 * "Reachability summary"). Longest matching prefix wins; anything else under /api is
 * dashboard-session only, which is how every /api/v2 path refuses API keys.
 */
export type Surface =
  /** no credential (health, help-center reads, docs, widget chat, end-user login) */
  | 'public'
  /** verified by the handler itself (QStash-signed callbacks) */
  | 'signed'
  /** INTERNAL_API_TOKEN (voice agent, jobs) */
  | 'internal'
  /** end-user JWT */
  | 'end_user'
  /** API key (scope-checked) or dashboard session */
  | 'api'
  /** dashboard session only; API keys get 403 */
  | 'dashboard'
  /** dashboard sign-in (/api/v1/auth): no credential needed, API keys get 403, a session token sent is read */
  | 'sign_in';
