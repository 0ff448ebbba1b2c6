import type { Kysely, Transaction } from 'kysely';
import type { AuthTables } from './tables/auth';
import type { ContactsKbTables } from './tables/contacts_kb';
import type { ConversationsTables } from './tables/conversations';
import type { FilesTables } from './tables/files';
import type { FoundationTables } from './tables/foundation';
import type { HelpdeskTables } from './tables/helpdesk';
import type { IntegratorTables } from './tables/integrator';
import type { PlatformTables } from './tables/platform';
import type { SlaTables } from './tables/sla';
import type { TicketsCallsTables } from './tables/tickets_calls';
import type { WebhooksTables } from './tables/webhooks';

/**
 * The whole typed schema. Each area declares its tables in ./tables/<area>.ts (one file per
 * owner, so areas grow without touching each other); the SQL lives in /schema/NNNN_*.sql.
 */
export interface Database
  extends FoundationTables,
    TicketsCallsTables,
    WebhooksTables,
    ConversationsTables,
    ContactsKbTables,
    PlatformTables,
    IntegratorTables,
    AuthTables,
    FilesTables,
    SlaTables,
    HelpdeskTables {}

export type Db = Kysely<Database>;
export type * from './tables/foundation';

/** What a query runs on: the database or an open transaction (every data function takes either). */
export type Executor = Kysely<Database> | Transaction<Database>;
