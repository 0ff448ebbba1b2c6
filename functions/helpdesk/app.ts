import { Hono } from 'hono';
import { audit, auditedWrite, found } from '../../shared/audit/audited';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { dropFieldValues } from '../../shared/helpdesk/fields';
import { releaseTeamRecords } from '../../shared/helpdesk/routing';
import { userIdOf } from '../../shared/helpdesk/saved-replies';
import { storedEmpty, storedJson } from '../../shared/http/answer-with-work';
import { TICKET_FIELD_KEY_TAKEN, validationError } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { newId } from '../../shared/ids';
import {
  assertMembers,
  deleteRow,
  findSavedReply,
  findTeam,
  findTicketField,
  insertRow,
  keyTaken,
  listSavedReplies,
  listTeams,
  listTicketFields,
  savedReplyView,
  teamView,
  ticketFieldView,
  updateRow,
} from './data';
import * as routes from './routes';

/**
 * The help desk's dashboard resources (docs/helpdesk.md): teams and their routing, saved replies,
 * ticket field definitions. The rules tickets and conversations apply with them (the routing pick,
 * the rendering of a saved reply, the check of custom fields) live in shared/helpdesk/.
 */
export const app = new Hono<AppEnv>();

type Changes = Record<string, { from: unknown; to: unknown }>;
/** The fields of `patch` that differ from `current`, as {field: {from, to}}. */
function changesOf<T extends object>(current: T, patch: Partial<T>): Changes {
  const changes: Changes = {};
  for (const [field, to] of Object.entries(patch)) {
    if (to === undefined) continue;
    const from = current[field as keyof T];
    if (JSON.stringify(from ?? null) !== JSON.stringify(to ?? null)) changes[field] = { from, to };
  }
  return changes;
}
const valuesOf = (changes: Changes) => Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.to]));

// ---- teams ----

register(app, routes.listTeams, async (c) => {
  const page = c.req.valid('query');
  const { rows, total } = await listTeams(c.get('services').db, tenantOf(c), page);
  return c.json(pageEnvelope('teams', rows.map(teamView), total, page));
});

register(app, routes.createTeam, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      await assertMembers(trx, tenantId, body.member_ids);
      const now = new Date();
      const created = await insertRow(trx, 'teams', {
        id: newId('team'),
        tenant_id: tenantId,
        ...body,
        created_at: now,
        updated_at: now,
      });
      return [created, audit('team.created', { type: 'team', id: created.id }, { name: created.name })];
    },
    (row) => storedJson(201, teamView(row)),
  );
});

register(app, routes.getTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const row = await findTeam(c.get('services').db, tenantOf(c), team_id);
  return c.json(teamView(found(row, 'Team')));
});

register(app, routes.updateTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const current = found(await findTeam(trx, tenantId, team_id), 'Team');
      const changes = changesOf(current, body);
      if (Object.keys(changes).length === 0) return [current, null];
      if (changes.member_ids) await assertMembers(trx, tenantId, body.member_ids!);
      const updated = await updateRow(trx, 'teams', tenantId, current.id, {
        ...valuesOf(changes),
        updated_at: new Date(),
      });
      return [updated, audit('team.updated', { type: 'team', id: current.id }, changes)];
    },
    (row) => storedJson(200, teamView(row)),
  );
});

register(app, routes.deleteTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const gone = found(await deleteRow(trx, 'teams', tenantId, team_id), 'Team');
      await releaseTeamRecords(trx, tenantId, gone.id);
      return [null, audit('team.deleted', { type: 'team', id: gone.id }, { name: gone.name })];
    },
    () => storedEmpty(),
  );
});

// ---- saved replies ----

const replyTarget = (id: string) => ({ type: 'saved_reply', id }) as const;

register(app, routes.listSavedReplies, async (c) => {
  const page = c.req.valid('query');
  const { rows, total } = await listSavedReplies(c.get('services').db, tenantOf(c), userIdOf(c), page);
  return c.json(pageEnvelope('saved_replies', rows.map(savedReplyView), total, page));
});

register(app, routes.createSavedReply, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const author = userIdOf(c);
  if (!author)
    throw validationError([
      { loc: ['body'], msg: 'A saved reply needs a signed-in author', type: 'value_error' },
    ]);
  return auditedWrite(
    c,
    async (trx) => {
      const now = new Date();
      const created = await insertRow(trx, 'saved_replies', {
        id: newId('savedReply'),
        tenant_id: tenantId,
        ...body,
        created_by: author,
        created_at: now,
        updated_at: now,
      });
      return [created, audit('saved_reply.created', replyTarget(created.id), { title: created.title })];
    },
    (row) => storedJson(201, savedReplyView(row)),
  );
});

register(app, routes.getSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const row = await findSavedReply(c.get('services').db, tenantOf(c), saved_reply_id, userIdOf(c));
  return c.json(savedReplyView(found(row, 'Saved reply')));
});

register(app, routes.updateSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const current = found(await findSavedReply(trx, tenantId, saved_reply_id, userIdOf(c)), 'Saved reply');
      const changes = changesOf(current, body);
      if (Object.keys(changes).length === 0) return [current, null];
      const updated = await updateRow(trx, 'saved_replies', tenantId, current.id, {
        ...valuesOf(changes),
        updated_at: new Date(),
      });
      return [
        updated,
        audit('saved_reply.updated', replyTarget(current.id), { fields: Object.keys(changes) }),
      ];
    },
    (row) => storedJson(200, savedReplyView(row)),
  );
});

register(app, routes.deleteSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const current = found(await findSavedReply(trx, tenantId, saved_reply_id, userIdOf(c)), 'Saved reply');
      await deleteRow(trx, 'saved_replies', tenantId, current.id);
      return [null, audit('saved_reply.deleted', replyTarget(current.id), { title: current.title })];
    },
    () => storedEmpty(),
  );
});

// ---- ticket fields ----

const fieldTarget = (id: string) => ({ type: 'ticket_field', id }) as const;

register(app, routes.listTicketFields, async (c) => {
  const page = c.req.valid('query');
  const { rows, total } = await listTicketFields(c.get('services').db, tenantOf(c), page);
  return c.json(pageEnvelope('ticket_fields', rows.map(ticketFieldView), total, page));
});

register(app, routes.createTicketField, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      if (await keyTaken(trx, tenantId, body.key)) throw validationError([TICKET_FIELD_KEY_TAKEN]);
      const created = await insertRow(trx, 'ticket_fields', {
        id: newId('ticketField'),
        tenant_id: tenantId,
        key: body.key,
        label: body.label,
        type: body.type,
        options: body.options ?? [],
        required: body.required,
        created_at: new Date(),
      });
      const entry = { key: created.key, type: created.type };
      return [created, audit('ticket_field.created', fieldTarget(created.id), entry)];
    },
    (row) => storedJson(201, ticketFieldView(row)),
  );
});

register(app, routes.updateTicketField, async (c) => {
  const { field_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const current = found(await findTicketField(trx, tenantId, field_id), 'Ticket field');
      const takesOptions = current.type === 'dropdown' || current.type === 'multiselect';
      if (body.options && (takesOptions ? body.options.length === 0 : body.options.length > 0))
        throw validationError([
          {
            loc: ['body', 'options'],
            msg: takesOptions
              ? `A ${current.type} needs at least one option`
              : `A ${current.type} field takes no options`,
            type: 'value_error',
          },
        ]);
      const changes = changesOf(current, body);
      if (Object.keys(changes).length === 0) return [current, null];
      const updated = await updateRow(trx, 'ticket_fields', tenantId, current.id, valuesOf(changes));
      return [
        updated,
        audit('ticket_field.updated', fieldTarget(current.id), { key: current.key, ...changes }),
      ];
    },
    (row) => storedJson(200, ticketFieldView(row)),
  );
});

register(app, routes.deleteTicketField, async (c) => {
  const { field_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      const gone = found(await deleteRow(trx, 'ticket_fields', tenantId, field_id), 'Ticket field');
      await dropFieldValues(trx, tenantId, gone.key);
      return [null, audit('ticket_field.deleted', fieldTarget(gone.id), { key: gone.key })];
    },
    () => storedEmpty(),
  );
});
