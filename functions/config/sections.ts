import type { ZodObject } from 'zod';
import {
  BrandingSettings,
  ChannelsSettings,
  GeneralSettings,
  IntegrationSettings,
  OnboardingSettings,
  TelephonySettings,
} from './schemas';

export interface SectionDef {
  schema: ZodObject;
  defaults: Record<string, unknown>;
  /** write-only fields: sealed at rest, masked in reads and in config.updated */
  secrets: readonly string[];
}

export const SECTIONS = {
  general: {
    schema: GeneralSettings,
    defaults: {
      company_name: null,
      support_email: null,
      timezone: 'UTC',
      locale: 'en',
      default_ticket_priority: 'medium',
      auto_close_after_days: 7,
      business_hours: null,
    },
    secrets: [],
  },
  branding: {
    schema: BrandingSettings,
    defaults: { primary_color: '#2563EB', logo_url: null, help_center_title: null, widget_greeting: null },
    secrets: [],
  },
  channels: {
    schema: ChannelsSettings,
    defaults: {
      email_enabled: true,
      chat_enabled: true,
      whatsapp_enabled: false,
      phone_enabled: false,
      default_channel: 'email',
    },
    secrets: [],
  },
  onboarding: {
    schema: OnboardingSettings,
    defaults: {
      profile_completed: false,
      channel_connected: false,
      team_invited: false,
      first_ticket: false,
      dismissed: false,
    },
    secrets: [],
  },
  telephony: {
    schema: TelephonySettings,
    defaults: {
      provider: null,
      phone_numbers: [],
      recording_enabled: true,
      transcription_enabled: true,
      voicemail_enabled: false,
      account_sid: null,
      auth_token: null,
      sip_uri: null,
    },
    secrets: ['auth_token', 'sip_uri'],
  },
  integration: {
    schema: IntegrationSettings,
    defaults: {
      enabled: false,
      base_url: null,
      account_id: null,
      channel: null,
      api_token: null,
      webhook_secret: null,
    },
    secrets: ['api_token', 'webhook_secret'],
  },
} satisfies Record<string, SectionDef>;

export type SectionKind = keyof typeof SECTIONS;

/** The sections read together at GET /api/v1/config (and its alias /api/v1/configuration). */
export const GENERAL_SECTIONS = ['general', 'branding', 'channels', 'onboarding'] as const;
export type GeneralSection = (typeof GENERAL_SECTIONS)[number];

/** A section's values: its settings, and its secrets (plaintext, only in memory, for change detection). */
export interface SectionValues {
  settings: Record<string, unknown>;
  secrets: Record<string, string>;
}
export type SectionChanges = Record<string, { from: unknown; to: unknown }>;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * `input` applied to a section (merge, PATCH: the fields given; replace, PUT: fields not given
 * reset to defaults; a null value resets a field; a value equal to its default is not stored),
 * and what that changes, field by field (secrets as `[REDACTED]`, or null when unset).
 */
export function applyToSection(
  kind: SectionKind,
  before: SectionValues,
  input: Record<string, unknown>,
  mode: 'merge' | 'replace',
  redacted: string,
): { after: SectionValues; changes: SectionChanges } {
  const def: SectionDef = SECTIONS[kind];
  const settings: Record<string, unknown> = mode === 'merge' ? { ...before.settings } : {};
  const secrets: Record<string, string> = mode === 'merge' ? { ...before.secrets } : {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === null) {
      delete settings[field];
      delete secrets[field];
    } else if (def.secrets.includes(field)) secrets[field] = String(value);
    else if (same(value, def.defaults[field])) delete settings[field];
    else settings[field] = value;
  }
  const changes: SectionChanges = {};
  for (const field of Object.keys(def.defaults)) {
    if (def.secrets.includes(field)) {
      const from = before.secrets[field];
      const to = secrets[field];
      if (from !== to)
        changes[field] = {
          from: from === undefined ? null : redacted,
          to: to === undefined ? null : redacted,
        };
      continue;
    }
    const dflt = def.defaults[field];
    const from = field in before.settings ? before.settings[field] : dflt;
    const to = field in settings ? settings[field] : dflt;
    if (!same(from, to)) changes[field] = { from: from ?? null, to: to ?? null };
  }
  return { after: { settings, secrets }, changes };
}
