import { join } from 'node:path';
import type { AppConfig } from '../env';
import { folderStorage } from './folder.node.js';
import { nodeSha256 } from './hash.node.js';
import type { FileStorage } from './port';
import { s3Storage } from './s3';
import { s3Settings, signingKeyOf } from './settings';

/**
 * The Node runtime's storage: an S3-compatible bucket when S3_ENDPOINT, S3_BUCKET,
 * S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set, else the folder `DATA_DIR/files`.
 */
export function nodeFileStorage(config: AppConfig): FileStorage {
  const s3 = s3Settings(config);
  return {
    objects: s3 ? s3Storage(s3) : folderStorage(join(config.DATA_DIR, 'files')),
    sha256: nodeSha256,
    signingKey: signingKeyOf(config),
  };
}
