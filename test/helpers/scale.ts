import { after } from 'node:test';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { newApiKey } from '../../src/server/ground/secrets.js';
import {
  attachRgw,
  type RgwAddress,
  rgwAvailable,
  rgwClient,
  startRgw,
  type TestRgw,
} from './ceph-rgw.js';
import { attachPostgres, postgresAvailable, startPostgres, type TestPostgres } from './postgres.js';

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

/**
 * The servers a test run shares (`test/run-node-tests.ts` starts them once for all its test
 * files, which saves a PostgreSQL and a Ceph boot per file): their addresses, as JSON.
 */
export const SHARED_SERVERS_ENV = 'FILEHOST_TEST_SCALE_SERVERS';

interface SharedServers {
  postgres: string;
  rgw: RgwAddress;
}

/**
 * Starts PostgreSQL and RGW for a whole test run; answers the environment that hands them
 * to its test processes and how to stop them, or why they cannot be had.
 */
export async function startSharedServers(): Promise<
  { env: Record<string, string>; stop: () => Promise<void> } | { skip: string }
> {
  const [pg, rgw] = await Promise.all([startPostgres(), startRgw()]);
  const stop = async () => {
    await Promise.all([!('skip' in pg) && pg.stop(), !('skip' in rgw) && rgw.stop()]);
  };
  if ('skip' in pg || 'skip' in rgw) {
    await stop();
    return { skip: ('skip' in pg ? pg.skip : '') || ('skip' in rgw ? rgw.skip : '') };
  }
  const { endpoint, accessKeyId, secretAccessKey } = rgw;
  const shared: SharedServers = {
    postgres: pg.adminUrl,
    rgw: { endpoint, accessKeyId, secretAccessKey },
  };
  return { env: { [SHARED_SERVERS_ENV]: JSON.stringify(shared) }, stop };
}

/**
 * Why this test file cannot have PostgreSQL and RGW (null: it can), for a suite to skip
 * itself on before any test runs. Boots them now (`scaleHarness()`), kept for its tests;
 * under CI=true a missing server fails instead (see `debian-packages.ts`).
 */
export async function scaleServersMissing(): Promise<string | null> {
  if (!process.env[SHARED_SERVERS_ENV]) {
    const missing = postgresAvailable() ?? rgwAvailable();
    if (missing) return missing.skip;
  }
  await scaleHarness();
  return null;
}

/**
 * PostgreSQL and RGW for this process: the test run's shared ones when it started them
 * (only the databases and buckets this process made are removed after its tests), else its
 * own, started on first use and stopped after its tests.
 */
export function scaleHarness(): Promise<ScaleHarness> {
  const shared = process.env[SHARED_SERVERS_ENV];
  if (shared && !harness) {
    const { postgres, rgw: address } = JSON.parse(shared) as SharedServers;
    const pg = attachPostgres(postgres);
    const rgw = attachRgw(address);
    // Tidying only: what is left is gone when the run stops the servers, so a failure here
    // is said, not failed on.
    stops.push(async () => {
      for (const [what, tidy] of [
        ['databases', () => pg.stop()],
        ['buckets', () => rgw.stop()],
      ] as const) {
        await tidy().catch((error: Error) =>
          console.warn(
            `could not remove this file's ${what} on the shared servers: ${error.message}`,
          ),
        );
      }
    });
    harness = Promise.resolve({ pg, rgw });
  }
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
