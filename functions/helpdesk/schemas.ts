import * as z from 'zod';
import { FIELD_KEY, FIELD_LIMITS, OPTION_TYPES, TICKET_FIELD_TYPES } from '../../shared/helpdesk/fields';
import { PLACEHOLDERS, unknownPlaceholders } from '../../shared/helpdesk/placeholders';
import { TEAM_ROUTINGS } from '../../shared/helpdesk/routing';
import { requiredName } from '../../shared/http/names';
import { pageQuery } from '../../shared/http/pagination';

export const HELPDESK_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;
export const ListQuery = pageQuery(HELPDESK_PAGE);

const Id = z.string().min(1).max(128);
export const TeamIdParam = z.object({ team_id: Id.describe('The team id (`team_…`)') });
export const SavedReplyIdParam = z.object({ saved_reply_id: Id.describe('The saved reply id (`srp_…`)') });
export const TicketFieldIdParam = z.object({ field_id: Id.describe('The ticket field id (`tfd_…`)') });

const atLeastOne = <T extends z.ZodObject>(schema: T, names: string) =>
  schema
    .refine((b) => Object.values(b).some((v) => v !== undefined), {
      message: `At least one of ${names} is required`,
    })
    .meta({ minProperties: 1 });

// ---- teams ----

const TeamFields = {
  name: requiredName(200).describe('The team name shown to agents').meta({ example: 'Billing' }),
  description: z
    .string()
    .trim()
    .max(1000)
    .describe('What the team handles')
    .meta({ example: 'Invoices and refunds' }),
  routing: z
    .enum(TEAM_ROUTINGS)
    .describe(
      'How an assignment to the team alone picks a member: `manual` picks none, `round_robin` the next member after the last pick, `balanced` the member with the fewest open assignments (ties in turn)',
    ),
  member_ids: z
    .array(Id)
    .max(200)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'Members must be unique' })
    .describe('Active users of the tenant (`tus_…`), in rotation order'),
};

export const CreateTeamBody = z.strictObject({
  name: TeamFields.name,
  description: TeamFields.description.default(''),
  routing: TeamFields.routing.default('manual'),
  member_ids: TeamFields.member_ids.default([]),
});
export type CreateTeamBody = z.infer<typeof CreateTeamBody>;

export const UpdateTeamBody = atLeastOne(
  z.strictObject({
    name: TeamFields.name.optional(),
    description: TeamFields.description.optional(),
    routing: TeamFields.routing.optional(),
    member_ids: TeamFields.member_ids.optional(),
  }),
  'name, description, routing, member_ids',
);
export type UpdateTeamBody = z.infer<typeof UpdateTeamBody>;

export const Team = z.object({
  id: z.string().describe('The team id (`team_…`)'),
  name: z.string().describe('The team name'),
  description: z.string().describe('What the team handles'),
  routing: z.enum(TEAM_ROUTINGS).describe('The routing algorithm'),
  member_ids: z.array(z.string()).describe('Its members, in rotation order'),
  created_at: z.iso.datetime().describe('When it was created'),
  updated_at: z.iso.datetime().describe('When it last changed'),
});
export const TeamList = z.object({
  teams: z.array(Team).describe('The teams of this page'),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

// ---- saved replies ----

export const VISIBILITIES = ['tenant', 'personal'] as const;
const ReplyText = z
  .string()
  .trim()
  .min(1)
  .max(10_000)
  .superRefine((body, ctx) => {
    for (const name of unknownPlaceholders(body))
      ctx.addIssue({
        code: 'custom',
        message: `Unknown placeholder {{${name}}}; known: ${PLACEHOLDERS.join(', ')}`,
      });
  })
  .describe(`The reply text; may hold the placeholders ${PLACEHOLDERS.map((p) => `\`{{${p}}}\``).join(', ')}`)
  .meta({ example: 'Hi {{contact.first_name}}, thanks for writing. {{agent.name}}' });
const SavedReplyFields = {
  title: requiredName(200).describe('What agents pick it by').meta({ example: 'Refund on its way' }),
  body: ReplyText,
  shortcut: z
    .string()
    .trim()
    .regex(/^[a-z0-9_-]{1,50}$/, 'Lower-case letters, digits, `_` and `-`, at most 50')
    .nullable()
    .describe('A short name typed to insert it, e.g. `refund`')
    .meta({ example: 'refund' }),
  visibility: z
    .enum(VISIBILITIES)
    .describe('`tenant`: every user of the tenant sees and uses it; `personal`: its author only'),
};

export const CreateSavedReplyBody = z.strictObject({
  title: SavedReplyFields.title,
  body: SavedReplyFields.body,
  shortcut: SavedReplyFields.shortcut.default(null),
  visibility: SavedReplyFields.visibility.default('tenant'),
});
export type CreateSavedReplyBody = z.infer<typeof CreateSavedReplyBody>;

export const UpdateSavedReplyBody = atLeastOne(
  z.strictObject({
    title: SavedReplyFields.title.optional(),
    body: SavedReplyFields.body.optional(),
    shortcut: SavedReplyFields.shortcut.optional(),
    visibility: SavedReplyFields.visibility.optional(),
  }),
  'title, body, shortcut, visibility',
);
export type UpdateSavedReplyBody = z.infer<typeof UpdateSavedReplyBody>;

export const SavedReply = z.object({
  id: z.string().describe('The saved reply id (`srp_…`)'),
  title: z.string().describe('Its title'),
  body: z.string().describe('Its text, placeholders unrendered'),
  shortcut: z.string().nullable().describe('Its shortcut'),
  visibility: z.enum(VISIBILITIES).describe('Who sees and uses it'),
  created_by: z.string().describe('The user who wrote it (`tus_…`)'),
  created_at: z.iso.datetime().describe('When it was created'),
  updated_at: z.iso.datetime().describe('When it last changed'),
});
export const SavedReplyList = z.object({
  saved_replies: z.array(SavedReply).describe('The saved replies of this page'),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

// ---- ticket fields ----

const Options = z
  .array(z.string().trim().min(1).max(FIELD_LIMITS.option))
  .max(FIELD_LIMITS.options)
  .refine((o) => new Set(o).size === o.length, { message: 'Options must be unique' })
  .describe('The values a dropdown or multiselect takes (other types take none)')
  .meta({ example: ['free', 'pro', 'enterprise'] });
const Label = requiredName(FIELD_LIMITS.label).describe('The label agents see').meta({ example: 'Plan' });
const Required = z.boolean().describe('Whether a ticket must be created with a value');

export const CreateTicketFieldBody = z
  .strictObject({
    key: z
      .string()
      .regex(FIELD_KEY, 'Lower-case letters, digits and `_`, 1 to 64')
      .describe("The key in tickets' `custom_fields`, unique in the tenant")
      .meta({ example: 'plan' }),
    label: Label,
    type: z.enum(TICKET_FIELD_TYPES).describe('The value type'),
    options: Options.optional(),
    required: Required.default(false),
  })
  .superRefine((b, ctx) => {
    const takesOptions = OPTION_TYPES.has(b.type);
    if (takesOptions && !b.options?.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `A ${b.type} needs at least one option` });
    if (!takesOptions && b.options?.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `A ${b.type} field takes no options` });
  });
export type CreateTicketFieldBody = z.infer<typeof CreateTicketFieldBody>;

export const UpdateTicketFieldBody = atLeastOne(
  z.strictObject({ label: Label.optional(), options: Options.optional(), required: Required.optional() }),
  'label, options, required',
);
export type UpdateTicketFieldBody = z.infer<typeof UpdateTicketFieldBody>;

export const TicketField = z.object({
  id: z.string().describe('The field id (`tfd_…`)'),
  key: z.string().describe('Its key in `custom_fields`'),
  label: z.string().describe('Its label'),
  type: z.enum(TICKET_FIELD_TYPES).describe('Its value type'),
  options: z.array(z.string()).describe('The values a dropdown or multiselect takes (empty for other types)'),
  required: z.boolean().describe('Whether a ticket must be created with a value'),
  created_at: z.iso.datetime().describe('When it was created'),
});
export const TicketFieldList = z.object({
  ticket_fields: z.array(TicketField).describe('The ticket fields of this page'),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
