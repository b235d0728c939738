import { after } from 'node:test';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { newApiKey } from '../../src/server/secrets.js';
import { rgwClient, startRgw, type TestRgw } from './ceph-rgw.js';
import { startPostgres, type TestPostgres } from './postgres.js';

export interface ScaleHarness {
  pg: TestPostgres;
  rgw: TestRgw;
}

let harness: Promise<ScaleHarness> | null = null;
const stops: (() => Promise<void>)[] = [];
// Registered when the test file loads, so it runs once after all of its tests (a hook
// registered later, from inside a test's own hook, would belong to that hook alone). Only
// under the test runner: a bench that imports the service helpers is not a test.
if (process.env.NODE_TEST_CONTEXT) {
  after(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
}

/** PostgreSQL and RGW for this process, started on first use and stopped after its tests. */
export function scaleHarness(): Promise<ScaleHarness> {
  harness ??= (async () => {
    const [pg, rgw] = await Promise.all([startPostgres(), startRgw()]);
    const stopAll = async () => {
      if (!('skip' in pg)) await pg.stop();
      if (!('skip' in rgw)) await rgw.stop();
    };
    stops.push(stopAll);
    if ('skip' in pg || 'skip' in rgw) {
      await stopAll();
      throw new Error(('skip' in pg ? pg.skip : '') || ('skip' in rgw ? rgw.skip : ''));
    }
    return { pg, rgw };
  })();
  return harness;
}

/**
 * Settings for one service (or several sharing it: instances behind a load balancer) on a
 * fresh database and a fresh bucket whose CORS rule allows `origins`, and a view of what
 * the bucket holds: objects by key, open multipart uploads as `uploads/<key>`.
 */
export async function scaleDeployment(origins: string[]): Promise<{
  env: Record<string, string>;
  stored: () => Promise<string[]>;
}> {
  const { pg, rgw } = await scaleHarness();
  const env = await scaleEnv(pg, rgw, origins);
  const bucket = env.FILEHOST_S3_BUCKET;
  const s3 = rgwClient(rgw);
  const stored = async () => {
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    return [
      ...(objects.Contents ?? []).map((object) => object.Key ?? ''),
      ...(uploads.Uploads ?? []).map((upload) => `uploads/${upload.Key ?? ''}`),
    ].sort();
  };
  return { env, stored };
}

/**
 * The settings of a scale deployment on these servers: a fresh database, a fresh bucket set
 * up as `npm run admin -- bucket setup` does (CORS for `origins`, the lifecycle rule), and
 * a pair of keys (instances that share a database share their keys).
 */
export async function scaleEnv(pg: TestPostgres, rgw: TestRgw, origins: readonly string[]) {
  return {
    FILEHOST_DATABASE_URL: await pg.createDatabase(),
    FILEHOST_S3_BUCKET: await rgw.createBucket(undefined, { corsOrigins: [...origins] }),
    FILEHOST_S3_ENDPOINT: rgw.endpoint,
    FILEHOST_S3_REGION: rgw.region,
    FILEHOST_S3_FORCE_PATH_STYLE: 'true',
    FILEHOST_S3_ACCESS_KEY_ID: rgw.accessKeyId,
    FILEHOST_S3_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    FILEHOST_SECRET_KEY: newApiKey('secret'),
    FILEHOST_PUBLISHABLE_KEY: newApiKey('publishable'),
  };
}
