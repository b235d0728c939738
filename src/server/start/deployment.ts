import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { MetadataStore } from '../db/metadata-store.js';
import { deploymentOf, type ServiceConfig } from '../ground/config.js';
import { MemoryRateLimiter, type RateLimiter } from '../rate-limit/rate-limiter.js';
import type { BlobStore } from '../storage/blob-store.js';
import { DiskReserve } from '../storage/disk-reserve.js';
import { loadOrCreateSecret, lockDataDir, prepareDataDir } from './data-dir.js';

/** The stores a service runs on, picked by configuration. */
export interface Stores {
  db: MetadataStore;
  blobs: BlobStore;
  rateLimiter: RateLimiter;
  /**
   * True when this process owns what it stores (a locked data dir): nothing else can be
   * receiving bytes, so start-up may drop every unfinished one-request upload at once.
   */
  exclusive: boolean;
  /** Closes the stores and releases the data dir. */
  close(): Promise<void>;
  /** Space held back on the data dir's disk so a delete can commit on a full disk (local only). */
  reserve: DiskReserve | null;
  /**
   * The secret every instance shares for what the service signs (the local store's part
   * URLs, CDN links), in both deployments; each use derives its own key from it.
   */
  signingSecret: Buffer;
}

const SIGNING_SECRET_SETTING = 'url-signing-secret';

/**
 * The embedded default (SQLite and the local disk in `FILEHOST_DATA_DIR`, one process), or
 * at scale PostgreSQL (`FILEHOST_DATABASE_URL`) and S3-compatible storage
 * (`FILEHOST_S3_BUCKET`), shared by any number of instances. Whatever lives in the data
 * dir makes it this process's alone (it is locked); with neither local part nothing local
 * is used at all. The drivers of the scale deployment are loaded only when configured.
 */
export async function openStores(config: ServiceConfig, apiUrl: () => string): Promise<Stores> {
  const { sharedMetadata, usesDataDir: local } = deploymentOf(config);
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    if (local) {
      // lockDataDir makes the directory if it is missing and proves it writable.
      const lock = await lockDataDir(config.dataDir);
      cleanups.push(() => lock.release());
    }

    const { db, rateLimiter } = await openMetadataStore(config);
    cleanups.push(() => db.close());

    const signingSecret =
      config.signingSecret ??
      (sharedMetadata
        ? Buffer.from(
            await db.initSetting(SIGNING_SECRET_SETTING, randomBytes(32).toString('base64url')),
            'base64url',
          )
        : await loadOrCreateSecret(join(config.dataDir, 'signing.key')));
    let blobs: BlobStore;
    if (config.s3) {
      const { S3BlobStore } = await import('../storage/s3/s3-store.js');
      blobs = new S3BlobStore(config.s3);
    } else {
      const { LocalDiskBlobStore } = await import('../storage/local-disk/local-disk-store.js');
      blobs = new LocalDiskBlobStore({
        root: join(config.dataDir, 'storage'),
        signingSecret,
        apiUrl,
      });
    }
    cleanups.push(async () => blobs.close?.());
    const reserve = local ? new DiskReserve(join(config.dataDir, 'reserve')) : null;
    await reserve?.ensure();
    return { db, blobs, rateLimiter, exclusive: local, close, reserve, signingSecret };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The metadata store alone (and the rate limiter that lives beside it), for the service and
 * for `npm run admin`. Opening it applies the schema's migrations.
 */
export async function openMetadataStore(
  config: ServiceConfig,
): Promise<{ db: MetadataStore; rateLimiter: RateLimiter }> {
  if (config.databaseUrl) {
    const { PostgresMetadataStore } = await import('../db/postgres/postgres-store.js');
    const { PostgresRateLimiter } = await import('../rate-limit/postgres-rate-limiter.js');
    const store = await PostgresMetadataStore.open(config.databaseUrl);
    return {
      db: store,
      rateLimiter: new PostgresRateLimiter(store.pool, config.rateLimitPerMinute),
    };
  }
  await prepareDataDir(config.dataDir);
  const { SqliteMetadataStore } = await import('../db/sqlite/sqlite-store.js');
  return {
    db: new SqliteMetadataStore(join(config.dataDir, 'filehost.db')),
    rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute),
  };
}
