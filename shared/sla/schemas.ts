import * as z from 'zod';
import { isoInstant } from '../http/instants';

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
