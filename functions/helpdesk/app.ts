import { Hono } from 'hono';
import { recordAudit } from '../../shared/audit/audit';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { dropFieldValues } from '../../shared/helpdesk/fields';
import { releaseTeamRecords } from '../../shared/helpdesk/routing';
import { userIdOf } from '../../shared/helpdesk/saved-replies';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound, validationError } from '../../shared/http/errors';
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
  const { answer } = await answerWithWork(
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
      await recordAudit(trx, c, 'team.created', { type: 'team', id: created.id }, { name: created.name });
      return created;
    },
    (row) => storedJson(201, teamView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.getTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const row = await findTeam(c.get('services').db, tenantOf(c), team_id);
  if (!row) throw notFound('Team');
  return c.json(teamView(row));
});

register(app, routes.updateTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findTeam(trx, tenantId, team_id);
      if (!current) throw notFound('Team');
      const changes = changesOf(current, body);
      if (Object.keys(changes).length === 0) return current;
      if (changes.member_ids) await assertMembers(trx, tenantId, body.member_ids!);
      const updated = await updateRow(trx, 'teams', tenantId, current.id, {
        ...valuesOf(changes),
        updated_at: new Date(),
      });
      await recordAudit(trx, c, 'team.updated', { type: 'team', id: current.id }, changes);
      return updated;
    },
    (row) => storedJson(200, teamView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.deleteTeam, async (c) => {
  const { team_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const gone = await deleteRow(trx, 'teams', tenantId, team_id);
      if (!gone) throw notFound('Team');
      await releaseTeamRecords(trx, tenantId, gone.id);
      await recordAudit(trx, c, 'team.deleted', { type: 'team', id: gone.id }, { name: gone.name });
    });
  return c.body(null, 204);
});

// ---- saved replies ----

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
  const { answer } = await answerWithWork(
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
      await recordAudit(
        trx,
        c,
        'saved_reply.created',
        { type: 'saved_reply', id: created.id },
        { title: created.title },
      );
      return created;
    },
    (row) => storedJson(201, savedReplyView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.getSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const row = await findSavedReply(c.get('services').db, tenantOf(c), saved_reply_id, userIdOf(c));
  if (!row) throw notFound('Saved reply');
  return c.json(savedReplyView(row));
});

register(app, routes.updateSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findSavedReply(trx, tenantId, saved_reply_id, userIdOf(c));
      if (!current) throw notFound('Saved reply');
      const changes = changesOf(current, body);
      if (Object.keys(changes).length === 0) return current;
      const updated = await updateRow(trx, 'saved_replies', tenantId, current.id, {
        ...valuesOf(changes),
        updated_at: new Date(),
      });
      await recordAudit(
        trx,
        c,
        'saved_reply.updated',
        { type: 'saved_reply', id: current.id },
        {
          fields: Object.keys(changes),
        },
      );
      return updated;
    },
    (row) => storedJson(200, savedReplyView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.deleteSavedReply, async (c) => {
  const { saved_reply_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const current = await findSavedReply(trx, tenantId, saved_reply_id, userIdOf(c));
      if (!current) throw notFound('Saved reply');
      await deleteRow(trx, 'saved_replies', tenantId, current.id);
      await recordAudit(
        trx,
        c,
        'saved_reply.deleted',
        { type: 'saved_reply', id: current.id },
        { title: current.title },
      );
    });
  return c.body(null, 204);
});

// ---- ticket fields ----

register(app, routes.listTicketFields, async (c) => {
  const page = c.req.valid('query');
  const { rows, total } = await listTicketFields(c.get('services').db, tenantOf(c), page);
  return c.json(pageEnvelope('ticket_fields', rows.map(ticketFieldView), total, page));
});

register(app, routes.createTicketField, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      if (await keyTaken(trx, tenantId, body.key))
        throw validationError([
          { loc: ['body', 'key'], msg: 'A ticket field with this key exists', type: 'value_error' },
        ]);
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
      await recordAudit(
        trx,
        c,
        'ticket_field.created',
        { type: 'ticket_field', id: created.id },
        {
          key: created.key,
          type: created.type,
        },
      );
      return created;
    },
    (row) => storedJson(201, ticketFieldView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.updateTicketField, async (c) => {
  const { field_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findTicketField(trx, tenantId, field_id);
      if (!current) throw notFound('Ticket field');
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
      if (Object.keys(changes).length === 0) return current;
      const updated = await updateRow(trx, 'ticket_fields', tenantId, current.id, valuesOf(changes));
      await recordAudit(
        trx,
        c,
        'ticket_field.updated',
        { type: 'ticket_field', id: current.id },
        {
          key: current.key,
          ...changes,
        },
      );
      return updated;
    },
    (row) => storedJson(200, ticketFieldView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

register(app, routes.deleteTicketField, async (c) => {
  const { field_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const gone = await deleteRow(trx, 'ticket_fields', tenantId, field_id);
      if (!gone) throw notFound('Ticket field');
      await dropFieldValues(trx, tenantId, gone.key);
      await recordAudit(
        trx,
        c,
        'ticket_field.deleted',
        { type: 'ticket_field', id: gone.id },
        { key: gone.key },
      );
    });
  return c.body(null, 204);
});
