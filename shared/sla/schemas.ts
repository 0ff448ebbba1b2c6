import * as z from 'zod';
import { isoInstant } from '../http/instants';

/** `sla` on a ticket or conversation read (and on ticket events): null when no policy applies. */
export const SlaSchema = z
  .object({
    policy_id: z
      .string()
      .describe('The SLA policy that applies (the first by position whose conditions match)'),
    first_response_due_at: z.iso
      .datetime()
      .nullable()
      .describe('When the first public agent reply is due (null: the policy sets no first-response target)'),
    first_response_at: z.iso.datetime().nullable().describe('When the first public agent reply was sent'),
    first_response_breached: z
      .boolean()
      .describe('The first response was not sent by its due time (recorded once, never cleared)'),
    resolution_due_at: z.iso
      .datetime()
      .nullable()
      .describe(
        'When resolution is due, counted from creation or from the latest reopening (null: no resolution target)',
      ),
    resolution_breached: z
      .boolean()
      .describe('It was not resolved or closed by a resolution due time (recorded once, never cleared)'),
  })
  .nullable()
  .describe('The SLA due times and breaches; null when no SLA policy applies')
  .meta({
    example: {
      policy_id: 'sla_0mha4j8s2Xv5CnT7wRq1Dk',
      first_response_due_at: '2026-03-30T08:00:00.000Z',
      first_response_at: null,
      first_response_breached: false,
      resolution_due_at: '2026-03-31T14:00:00.000Z',
      resolution_breached: false,
    },
  });

/** The list filters of tickets (v1) and conversations (v2). */
export const SlaListFilters = {
  sla_breached: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('`true`: only records with an SLA breach (either target); `false`: only those with none'),
  sla_due_before: isoInstant
    .optional()
    .describe('Only records whose earliest SLA due time not yet met is before this instant (exclusive)')
    .meta({ example: '2026-12-01T12:00:00Z' }),
};
