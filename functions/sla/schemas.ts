import * as z from 'zod';
import { requiredName } from '../../shared/http/names';
import { isTimeZone } from '../../shared/sla/business-time';
import { TICKET_PRIORITIES, TICKET_SOURCES } from '../../shared/tickets/schemas';

/** The largest target: a year of minutes. */
export const MAX_MINUTES = 525_600;
/** What a policy's `channels` may name: a ticket's source or a conversation's channel. */
export const SLA_CHANNELS = [
  ...new Set([...TICKET_SOURCES, 'email', 'widget', 'whatsapp', 'phone', 'api'] as const),
] as readonly string[] as readonly [string, ...string[]];

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const isCalendarDate = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

export const Interval = z
  .strictObject({
    day: z.number().int().min(1).max(7).describe('ISO weekday the interval starts on: Monday 1 ... Sunday 7'),
    start: z.string().regex(HHMM, 'must be HH:MM (00:00-23:59)').describe('Wall-clock start, "HH:MM"'),
    end: z
      .string()
      .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'must be HH:MM (00:00-24:00)')
      .describe(
        'Wall-clock end, "HH:MM" or "24:00"; at or before `start`, the interval runs into the next day',
      ),
  })
  .meta({ example: { day: 1, start: '09:00', end: '17:00' } });

export const Holiday = z
  .strictObject({
    date: z
      .string()
      .refine(isCalendarDate, 'must be a calendar date, YYYY-MM-DD')
      .describe('The calendar day in the hours’ time zone, "YYYY-MM-DD": none of it counts'),
    name: requiredName(200).describe('What the day is'),
  })
  .meta({ example: { date: '2026-12-25', name: 'Christmas Day' } });

const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin')
  .describe('IANA time zone the intervals and holidays are read in, e.g. `Europe/Berlin`');

const HoursFields = {
  name: requiredName(200).describe('Your label for these hours'),
  timezone: TimeZone,
  intervals: z.array(Interval).max(100).describe('Weekly intervals of business time'),
  holidays: z
    .array(Holiday)
    .max(1000)
    .refine((hs) => new Set(hs.map((h) => h.date)).size === hs.length, 'each date at most once')
    .describe('Days with no business time'),
};

export const CreateBusinessHoursBody = z.strictObject({
  name: HoursFields.name,
  timezone: HoursFields.timezone,
  intervals: HoursFields.intervals,
  holidays: HoursFields.holidays.default([]),
});
export type CreateBusinessHoursBody = z.infer<typeof CreateBusinessHoursBody>;

export const UpdateBusinessHoursBody = z
  .strictObject({
    name: HoursFields.name.optional(),
    timezone: HoursFields.timezone.optional(),
    intervals: HoursFields.intervals.optional(),
    holidays: HoursFields.holidays.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'At least one of name, timezone, intervals, holidays is required',
  })
  .meta({ minProperties: 1 });
export type UpdateBusinessHoursBody = z.infer<typeof UpdateBusinessHoursBody>;

export const BusinessHours = z.object({
  id: z.string().describe('Business hours id (`bhr_…`)'),
  name: z.string().describe('Your label for these hours'),
  timezone: z.string().describe('IANA time zone'),
  intervals: z.array(Interval).describe('Weekly intervals of business time'),
  holidays: z.array(Holiday).describe('Days with no business time'),
  created_at: z.iso.datetime().describe('When they were created'),
  updated_at: z.iso.datetime().describe('When they last changed'),
});

const Minutes = z
  .number()
  .int()
  .min(0)
  .max(MAX_MINUTES)
  .nullable()
  .describe('Business minutes (0-525600); null: no such target');

export const Conditions = z
  .strictObject({
    priorities: z.array(z.enum(TICKET_PRIORITIES)).max(4).optional().describe('Any of these priorities'),
    channels: z
      .array(z.enum(SLA_CHANNELS))
      .max(20)
      .optional()
      .describe('Any of these channels (a conversation’s channel, a ticket’s source)'),
    tags: z.array(z.string().trim().min(1).max(64)).max(50).optional().describe('Any of these tags'),
  })
  .describe('Each optional; all given must match')
  .meta({ example: { priorities: ['urgent', 'high'] } });

const PolicyFields = {
  name: requiredName(200).describe('Your label for the policy'),
  position: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .describe('Order among the policies: the first matching by position applies (ties: oldest first)'),
  business_hours_id: z
    .string()
    .min(1)
    .max(128)
    .nullable()
    .describe('The business hours its minutes count in; null: around the clock'),
  conditions: Conditions,
  first_response_minutes: Minutes,
  resolution_minutes: Minutes,
};

export const CreateSlaPolicyBody = z.strictObject({
  name: PolicyFields.name,
  position: PolicyFields.position.optional().describe('Order among the policies; default: after the last'),
  business_hours_id: PolicyFields.business_hours_id.default(null),
  conditions: PolicyFields.conditions.default({}),
  first_response_minutes: PolicyFields.first_response_minutes.default(null),
  resolution_minutes: PolicyFields.resolution_minutes.default(null),
});
export type CreateSlaPolicyBody = z.infer<typeof CreateSlaPolicyBody>;

export const UpdateSlaPolicyBody = z
  .strictObject({
    name: PolicyFields.name.optional(),
    position: PolicyFields.position.optional(),
    business_hours_id: PolicyFields.business_hours_id.optional(),
    conditions: PolicyFields.conditions.optional(),
    first_response_minutes: PolicyFields.first_response_minutes.optional(),
    resolution_minutes: PolicyFields.resolution_minutes.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message:
      'At least one of name, position, business_hours_id, conditions, first_response_minutes, resolution_minutes is required',
  })
  .meta({ minProperties: 1 });
export type UpdateSlaPolicyBody = z.infer<typeof UpdateSlaPolicyBody>;

export const SlaPolicy = z.object({
  id: z.string().describe('Policy id (`sla_…`)'),
  name: z.string().describe('Your label for the policy'),
  position: z.number().int().describe('Order among the policies: the first matching by position applies'),
  business_hours_id: z
    .string()
    .nullable()
    .describe('The business hours its minutes count in; null: around the clock'),
  conditions: z
    .object({
      priorities: z.array(z.string()).optional().describe('Any of these priorities'),
      channels: z.array(z.string()).optional().describe('Any of these channels'),
      tags: z.array(z.string()).optional().describe('Any of these tags'),
    })
    .describe('Each optional; all given must match'),
  first_response_minutes: z.number().int().nullable().describe('First-response target in business minutes'),
  resolution_minutes: z.number().int().nullable().describe('Resolution target in business minutes'),
  created_at: z.iso.datetime().describe('When it was created'),
  updated_at: z.iso.datetime().describe('When it last changed'),
});

export const HoursIdParam = z.object({
  id: z.string().min(1).max(128).describe('The business hours’ id (`bhr_…`)'),
});
export const PolicyIdParam = z.object({
  id: z.string().min(1).max(128).describe('The SLA policy’s id (`sla_…`)'),
});
