import type { AppConfig } from '../env';
import { edgeSha256 } from './hash';
import type { FileStorage } from './port';
import { type R2BucketLike, r2Storage } from './r2';
import { s3Storage } from './s3';
import { s3Settings, signingKeyOf } from './settings';

/** The binding name of the files bucket in wrangler.toml (`r2_buckets`). */
export const R2_BINDING = 'ATTACHMENTS';

const isBucket = (v: unknown): v is R2BucketLike =>
  typeof v === 'object' && v !== null && typeof (v as R2BucketLike).put === 'function';

/**
 * A Worker's storage: the R2 bucket bound as ATTACHMENTS, else an S3-compatible bucket from the
 * S3_* settings; undefined when neither is there (file routes then answer 503).
 */
export function edgeFileStorage(config: AppConfig, env: Record<string, unknown>): FileStorage | undefined {
  const bucket = env[R2_BINDING];
  const s3 = s3Settings(config);
  const objects = isBucket(bucket) ? r2Storage(bucket) : s3 ? s3Storage(s3) : null;
  if (!objects) return undefined;
  return { objects, sha256: edgeSha256, signingKey: signingKeyOf(config) };
}
