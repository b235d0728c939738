/**
 * `filehost/server`: the reference service for Node. `startService(configFromEnv())` is
 * what `npm run server` runs; the store interfaces are where PostgreSQL or S3-compatible
 * storage plug in.
 */

export type { ServiceContext } from './context.js';
export type {
  ApiKeyRow,
  FileRow,
  FileRowStatus,
  ListPosition,
  MetadataStore,
  Project,
} from './db/metadata-store.js';
export { SqliteMetadataStore } from './db/sqlite/sqlite-store.js';
export { ConfigError, type ServiceConfig } from './ground/config.js';
export { ServiceError } from './ground/errors.js';
export { MemoryRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.js';
export { createKey, createProject, ensureKey, registerKey } from './start/admin.js';
export { configFromEnv, DEMO_ORIGINS } from './start/config-from-env.js';
export { openStores, type Stores } from './start/deployment.js';
export { type RunningService, startService } from './start/service.js';
export {
  BlobBusyError,
  BlobNotFoundError,
  type BlobStore,
  BlobUnavailableError,
  type ByteRange,
  type HeldPart,
  type MultipartUpload,
  type PartPlacement,
} from './storage/blob-store.js';
export { LocalDiskBlobStore } from './storage/local-disk/local-disk-store.js';
