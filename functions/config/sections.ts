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
