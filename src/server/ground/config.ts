import type { Plan } from '../../api/limits.js';
import type { TargetOptions } from './targets.js';

/**
 * The service's settings, as start-up read them (`start/config-from-env.ts` reads the
 * `FILEHOST_*` variables): every layer reads them, none changes them.
 */

/** Where clamd listens: `tcp://host:port`, or the path of its unix socket. */
export type ClamdAddress = { host: string; port: number } | { path: string };

/**
 * `FILEHOST_STRIP_METADATA` (decisions.md, "Safe ingest"): `gps` removes location only,
 * `all` removes EXIF, XMP and IPTC but the orientation and the colour profile, `none`
 * keeps the file as it came.
 */
export const STRIP_MODES = ['gps', 'all', 'none'] as const;
export type StripMode = (typeof STRIP_MODES)[number];

export interface ServiceConfig {
  host: string;
  /** 0 picks a free port (tests). */
  apiPort: number;
  cdnPort: number;
  /** Prometheus metrics at `/metrics` on this port (0: a free one), bound to `metricsHost`; off when undefined. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Public base URLs; derived from the bound ports when not given. */
  apiUrl: string | undefined;
  cdnUrl: string | undefined;
  dataDir: string;
  /** Settings of the default project; undefined leaves what is stored alone. */
  secretKey: string | undefined;
  publishableKey: string | undefined;
  allowedOrigins: string[] | undefined;
  /** `FILEHOST_STORAGE_QUOTA` / `FILEHOST_MAX_PENDING_UPLOADS` of the default project (0: none). */
  storageQuota: number | undefined;
  maxPendingUploads: number | undefined;
  /** `FILEHOST_ALLOWED_TYPES`: the default project's accepted types; null: every type. */
  allowedTypes: string[] | null | undefined;
  /** `FILEHOST_REQUIRE_UPLOAD_TOKEN`: the default project's uploads need an upload token. */
  requireUploadToken: boolean | undefined;
  /** `FILEHOST_ANONYMOUS_SHARE`: the default project's anonymous share (0 to 1). */
  anonymousShare: number | undefined;
  plan: Plan | undefined;
  rateLimitPerMinute: number;
  uploadUrlTtlSeconds: number;
  /**
   * A pending upload expires this long after its sign or its last part, whichever is
   * later (24 h), and never later than `uploadMaxLifetimeSeconds` after its sign (7 days).
   */
  uploadLifetimeSeconds: number;
  uploadMaxLifetimeSeconds: number;
  /** Part size of multi-step uploads; the service raises it for files that need more. */
  partSize: number;
  /** A connection with no bytes moving for this long is cut (not a cap on slow uploads). */
  idleTimeoutSeconds: number;
  /** How long a JSON body (sign, complete) may take to arrive whole: `408` past it. */
  jsonBodyTimeoutSeconds: number;
  /**
   * `FILEHOST_BODY_PROGRESS_WINDOW` (seconds, default 30): an upload body that brings fewer
   * than 16 KiB in any window this long is ended `408` (decisions.md, "Slow senders hold
   * nothing"); shorter only to test it.
   */
  bodyProgressWindowSeconds: number;
  /**
   * Connections one client address may hold at once; 0: no cap. Off behind a trusted
   * proxy, whose one address carries every client (cap there instead).
   */
  maxConnectionsPerClient: number;
  /** How long past its expiry an abandoned pending upload is kept before it is removed. */
  pendingGraceSeconds: number;
  sweepIntervalSeconds: number;
  /**
   * `FILEHOST_DRAIN_SECONDS` (default 10): from SIGTERM, how long new connections are still
   * served (`/readyz` already `503`) while a load balancer notices.
   */
  drainSeconds: number;
  /**
   * `FILEHOST_SHUTDOWN_SECONDS` (default 30): the longest a stop takes from SIGTERM to the
   * exit, the drain included; what is still under way then is cut.
   */
  shutdownSeconds: number;
  /** Memory the CDN may keep of small files and records, bytes; 0 turns the cache off. */
  cdnCacheBytes: number;
  /**
   * Bytes of stored image variants a project may hold (`FILEHOST_VARIANT_CACHE_BYTES`);
   * undefined: each project's own default, the smaller of a tenth of its storage quota and
   * 2 GiB (`variantBudget`).
   */
  variantCacheBytes: number | undefined;
  /** Originals larger than this are not transformed (`FILEHOST_VARIANT_MAX_SOURCE_BYTES`). */
  variantMaxSourceBytes: number;
  /** `postgres://…`: metadata in PostgreSQL instead of SQLite in the data dir. */
  databaseUrl: string | undefined;
  /** Bytes in S3-compatible storage instead of the data dir. */
  s3: S3Config | undefined;
  /** Key of signed upload URLs; undefined: generated once and kept (data dir or database). */
  signingSecret: Buffer | undefined;
  /**
   * Which `X-Forwarded-For` hops to believe for the client IP (rate limits): a hop count,
   * or the proxies' addresses/CIDRs; undefined trusts none (the socket's address is used).
   */
  trustProxy: number | string[] | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** An endpoint the default project gets at start (`FILEHOST_WEBHOOK_URL`); none: undefined. */
  webhookUrl: string | undefined;
  /** Its signing secret (`whsec_…`); undefined: one is made and kept. */
  webhookSecret: string | undefined;
  /**
   * Whether webhooks may reach loopback, private and unique-local addresses
   * (`FILEHOST_WEBHOOK_ALLOW_PRIVATE`): no by default on both deployments (decisions.md,
   * "Private targets are opt-in"); link-local and metadata addresses never.
   */
  webhookAllowPrivate: boolean;
  /** How long one delivery attempt may take, connection to answer. */
  webhookTimeoutMs: number;
  /** `FILEHOST_CLAMD`: the ClamAV daemon every file is scanned by; undefined: no scanning. */
  clamd: ClamdAddress | undefined;
  /**
   * `FILEHOST_CLAMD_TIMEOUT` (seconds, default 30): the longest clamd may take no bytes
   * while a file is sent to it before the scan counts as unavailable (`503`, the upload
   * stays pending).
   */
  clamdTimeoutMs: number;
  /**
   * `FILEHOST_SCAN_TIMEOUT` (seconds, default 60): the longest clamd may take to give its
   * verdict once it has every byte; past it the file is `unscannable` (`422`, not kept).
   */
  scanTimeoutMs: number;
  /**
   * `FILEHOST_SCAN_CONCURRENCY` (default 4): scans this instance runs at once; the others
   * wait, served in turn across client addresses.
   */
  scanConcurrency: number;
  /** `FILEHOST_STRIP_METADATA`: what is removed from photos at completion (default `gps`). */
  stripMetadata: StripMode;
  /**
   * Whether imports from a URL may reach loopback, private and unique-local addresses
   * (`FILEHOST_IMPORT_ALLOW_PRIVATE`): as webhooks, no by default; link-local and metadata
   * addresses never.
   */
  importAllowPrivate: boolean;
  /**
   * An import that brings fewer than 16 KiB in any window this long fails `import_timeout`
   * (`FILEHOST_IMPORT_IDLE_TIMEOUT`, decisions.md: 30 s).
   */
  importIdleSeconds: number;
  /**
   * An import still fetching this long after it started fails `import_timeout`, however
   * fast it goes (`FILEHOST_IMPORT_MAX_SECONDS`, default 600).
   */
  importMaxSeconds: number;
  /**
   * Tests only, set by no variable: loopback addresses an import takes as public (see
   * `TargetOptions.treatAsPublic`), so a test can stand a "public" server on 127.0.0.2.
   */
  importTargetForTests?: TargetOptions;
}

/**
 * What a configuration makes of the service, decided in this one place:
 * - `sharedMetadata`: metadata in PostgreSQL, which any number of instances share, so
 *   nothing one instance remembers alone is the truth (the CDN re-reads records, the URL
 *   signing secret and the default project are agreed in the database);
 * - `usesDataDir`: something lives in the data directory (SQLite or the local disk), which
 *   makes this process the only one on it (it is locked), so it cleans up without asking.
 * The scale deployment is both PostgreSQL and S3: shared metadata and no data directory.
 */
export interface Deployment {
  sharedMetadata: boolean;
  usesDataDir: boolean;
}

export function deploymentOf(config: Pick<ServiceConfig, 'databaseUrl' | 's3'>): Deployment {
  const sharedMetadata = config.databaseUrl !== undefined;
  return { sharedMetadata, usesDataDir: !sharedMetadata || config.s3 === undefined };
}

export interface S3Config {
  bucket: string;
  region: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  forcePathStyle: boolean;
  /** Unset: the AWS SDK's usual credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** `FILEHOST_S3_CHECKSUM`: the digest of parts of uploads signed with checksums. */
  checksum: 'md5' | 'none';
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}
