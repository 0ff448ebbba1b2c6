// Every keyed operation's case for test/integration/idempotency-answer-with-work.test.ts, by
// function folder (the dashboard surface's in one file, for idempotency-dashboard.test.ts too).
import { conversationCases } from './conversations';
import { dashboardCases } from './dashboard';
import { directoryCases } from './directory';
import { settingsCases } from './settings';
import { ticketCases } from './tickets';
import type { KeyedCase } from './types';
import { webhookCases } from './webhooks';

export const KEYED_CASES: KeyedCase[] = [
  ...ticketCases,
  ...conversationCases,
  ...directoryCases,
  ...webhookCases,
  ...settingsCases,
  ...dashboardCases,
];
