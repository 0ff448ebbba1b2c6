import type { AppConfig } from '../env';
import type { S3Settings } from './s3';

/** The S3 bucket the environment names, or null when any of its four settings is missing. */
export function s3Settings(config: AppConfig): S3Settings | null {
  const { S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION } = config;
  if (!S3_ENDPOINT || !S3_BUCKET || !S3_ACCESS_KEY_ID || !S3_SECRET_ACCESS_KEY) return null;
  return {
    endpoint: S3_ENDPOINT,
    bucket: S3_BUCKET,
    accessKeyId: S3_ACCESS_KEY_ID,
    secretAccessKey: S3_SECRET_ACCESS_KEY,
    region: S3_REGION,
  };
}

/**
 * The HMAC key of download links: FILES_SIGNING_KEY, else one derived from API_KEY_HASH_SECRET (a
 * secret every deployment already sets) under its own label, so links work with nothing to set up.
 */
export const signingKeyOf = (config: AppConfig): string =>
  config.FILES_SIGNING_KEY ?? `file-links\u0000${config.API_KEY_HASH_SECRET}`;
