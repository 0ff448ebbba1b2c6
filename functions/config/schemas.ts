import * as z from 'zod';
import { smtpLimits } from '../../shared/http/email';
import { ianaTimeZone } from '../../shared/http/instants';
import { mailedName, requiredName } from '../../shared/http/names';

/**
 * Tenant settings, by section. Each section is a strict object of optional fields: PATCH sends
 * some of them (null resets a field to its default), PUT sends the whole section (missing fields
 * reset). Fields listed in SECTIONS[...].secrets are write-only: stored sealed, read back masked.
 */
const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'time must be HH:MM');
const HttpsUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => u.startsWith('https://'), 'must start with https://');
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const GeneralSettings = z.strictObject({
  company_name: requiredName(200).nullish(),
  support_email: z
    .string()
    .email()
    .max(320)
    .refine(...smtpLimits)
    .nullish(),
  timezone: ianaTimeZone.nullish(),
  locale: z.string().min(2).max(35).nullish(),
  default_ticket_priority: z.enum(['low', 'medium', 'high', 'urgent']).nullish(),
  auto_close_after_days: z.number().int().min(0).max(365).nullish(),
  business_hours: z
    .strictObject({ start: HHMM, end: HHMM, days: z.array(z.enum(WEEKDAYS)).max(7) })
    .nullish(),
});

export const BrandingSettings = z.strictObject({
  primary_color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'color must be #RRGGBB')
    .nullish(),
  logo_url: HttpsUrl.nullish(),
  help_center_title: z.string().max(200).nullish(),
  widget_greeting: z.string().max(500).nullish(),
});

export const ChannelsSettings = z.strictObject({
  email_enabled: z.boolean().nullish(),
  chat_enabled: z.boolean().nullish(),
  whatsapp_enabled: z.boolean().nullish(),
  phone_enabled: z.boolean().nullish(),
  default_channel: z.enum(['email', 'chat', 'whatsapp', 'phone']).nullish(),
});

export const ONBOARDING_STEPS = [
  'profile_completed',
  'channel_connected',
  'team_invited',
  'first_ticket',
] as const;
export const OnboardingSettings = z.strictObject({
  profile_completed: z.boolean().nullish(),
  channel_connected: z.boolean().nullish(),
  team_invited: z.boolean().nullish(),
  first_ticket: z.boolean().nullish(),
  dismissed: z.boolean().nullish(),
});

export const TelephonySettings = z.strictObject({
  provider: z.enum(['twilio', 'vonage', 'telnyx', 'sip']).nullish(),
  phone_numbers: z
    .array(z.string().regex(/^\+[1-9]\d{6,14}$/, 'phone numbers are E.164 (+15551234567)'))
    .max(50)
    .nullish(),
  recording_enabled: z.boolean().nullish(),
  transcription_enabled: z.boolean().nullish(),
  voicemail_enabled: z.boolean().nullish(),
  account_sid: z.string().max(200).nullish(),
  /** secret: write-only */
  auth_token: z.string().min(1).max(500).nullish(),
  /** secret: write-only */
  sip_uri: z.string().max(500).nullish(),
});

export const INTEGRATION_PROVIDERS = [
  'slack',
  'jira',
  'salesforce',
  'hubspot',
  'zendesk',
  'servicenow',
] as const;
export const IntegrationSettings = z.strictObject({
  enabled: z.boolean().nullish(),
  base_url: HttpsUrl.nullish(),
  account_id: z.string().max(200).nullish(),
  channel: z.string().max(200).nullish(),
  /** secret: write-only */
  api_token: z.string().min(1).max(2000).nullish(),
  /** secret: write-only */
  webhook_secret: z.string().min(1).max(2000).nullish(),
});

export const TenantProfileBody = z.strictObject({ name: mailedName(200) });

export const SectionParam = z.object({ section: z.enum(['general', 'branding', 'channels', 'onboarding']) });
export const ProviderParam = z.object({
  provider: z.enum(INTEGRATION_PROVIDERS).describe('The third-party service whose integration this is'),
});

export const ChangeSet = z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }));
export const SectionResponse = z.object({
  section: z.string(),
  settings: z.record(z.string(), z.unknown()),
  updated_at: z.string().nullable(),
});
export const WriteResponse = SectionResponse.extend({ changes: ChangeSet });
