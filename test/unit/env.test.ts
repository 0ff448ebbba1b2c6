import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/env';

const SECRETS = {
  DASHBOARD_JWT_SECRET: 'd',
  END_USER_JWT_SECRET: 'e',
  INTERNAL_API_TOKEN: 'i',
  API_KEY_HASH_SECRET: 'a',
  WEBHOOK_ENCRYPTION_KEY: 'w',
  VOICE_WIDGET_SECRET: 'v',
};

/** loadConfig's refusal, or a failure if it accepted `env` */
function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  // a deployment learns every missing secret from one failed start, not one restart per secret
  it('names every missing secret of production in one message, one per line', () => {
    const { message } = refusal({ APP_ENV: 'production' });
    expect(message.split('\n')).toEqual([
      'Invalid environment (6 problems):',
      '  DASHBOARD_JWT_SECRET must be set when APP_ENV=production (or DASHBOARD_JWKS_URL)',
      ...Object.keys(SECRETS)
        .slice(1)
        .map((name) => `  ${name} must be set when APP_ENV=production`),
    ]);
  });

  it('reports invalid variables and missing secrets together', () => {
    const { message } = refusal({
      APP_ENV: 'staging',
      WEBHOOK_TIMEOUT_MS: 'soon',
      MAIL_API_URL: 'not a url',
      ...SECRETS,
      VOICE_WIDGET_SECRET: '',
    });
    expect(message).toMatch(/^Invalid environment \(3 problems\):\n/);
    expect(message).toContain('\n  WEBHOOK_TIMEOUT_MS: ');
    expect(message).toContain('\n  MAIL_API_URL: ');
    expect(message).toContain('\n  VOICE_WIDGET_SECRET must be set when APP_ENV=staging');
  });

  it('production refuses an http:// PUBLIC_BASE_URL (its links carry one-time tokens); elsewhere it may be http', () => {
    const { message } = refusal({
      APP_ENV: 'production',
      ...SECRETS,
      PUBLIC_BASE_URL: 'http://support.example.com',
    });
    expect(message.split('\n')).toEqual([
      'Invalid environment (1 problem):',
      '  PUBLIC_BASE_URL must be an https:// origin when APP_ENV=production: the links it starts carry one-time tokens (got "http://support.example.com")',
    ]);
    const https = { APP_ENV: 'production', ...SECRETS, PUBLIC_BASE_URL: 'https://support.example.com' };
    expect(loadConfig(https).PUBLIC_BASE_URL).toBe('https://support.example.com');
    for (const APP_ENV of ['development', 'test', 'staging'])
      expect(loadConfig({ APP_ENV, ...SECRETS, PUBLIC_BASE_URL: 'http://127.0.0.1:8787' }).APP_ENV).toBe(
        APP_ENV,
      );
  });

  it('accepts production with every secret, or a JWKS URL for the dashboard secret', () => {
    expect(loadConfig({ APP_ENV: 'production', ...SECRETS }).APP_ENV).toBe('production');
    const { DASHBOARD_JWT_SECRET: _, ...rest } = SECRETS;
    const jwks = loadConfig({
      APP_ENV: 'production',
      ...rest,
      DASHBOARD_JWKS_URL: 'https://id.example/jwks.json',
    });
    expect(jwks.DASHBOARD_JWKS_URL).toBe('https://id.example/jwks.json');
  });

  it('falls back to the development secrets in development', () => {
    expect(loadConfig({}).DASHBOARD_JWT_SECRET).toBe('dev-dashboard-jwt-secret-change-me');
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '-1' })).toThrow(
      /^Invalid environment \(1 problem\):\n {2}WEBHOOK_TIMEOUT_MS: /,
    );
  });
});
