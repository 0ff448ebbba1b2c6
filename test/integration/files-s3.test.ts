import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: s3rver ships no types
import S3rver from 's3rver';
import { s3Storage } from '../../shared/storage/s3';
import { fileSuite } from '../support/files-suite';
import { postgresUnavailable } from '../support/harness';

const BUCKET = 'files-test';
const CREDENTIALS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

// the S3 adapter against a real S3 server on this machine (s3rver: AWS's REST API, signatures checked)
if (!postgresUnavailable())
  fileSuite('an S3-compatible bucket (s3rver)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'files-s3-'));
    const server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = (await server.run()) as { port: number };
    const env = { S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_BUCKET: BUCKET, ...CREDENTIALS };
    // the bucket read through its own API, not through the adapter's shortcuts
    const bucket = s3Storage({
      endpoint: env.S3_ENDPOINT,
      bucket: BUCKET,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      region: 'us-east-1',
    });
    return {
      env,
      objects: () => bucket.list(''),
      close: async () => {
        await server.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  });
