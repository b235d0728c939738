import { resolve } from 'node:path';
import { MIN_PART_SIZE, PLANS, type Plan } from '../../api/limits.js';
import { PUBLISHABLE_KEY_PREFIX, SECRET_KEY_PREFIX } from '../../api/routes.js';
import { MetadataUnavailableError } from '../db/unavailable.js';
import { isWebhookSecret } from '../events/webhook-secret.js';
import {
  type ClamdAddress,
  ConfigError,
  type S3Config,
  type ServiceConfig,
  STRIP_MODES,
  type StripMode,
} from '../ground/config.js';
import { normalizeOrigin } from '../ground/origins.js';
import { keyWeakness } from '../ground/secrets.js';
import { portInUseMessage, StartupError } from '../ground/startup-error.js';
import { parseTargetUrl } from '../ground/targets.js';
import { parseTypeList } from '../ground/type-list.js';
import { parseClamdAddress } from '../ingest/clamd.js';
import { BlobUnavailableError } from '../storage/blob-store.js';

/**
 * Where the demo page is served from (`npm start`): the scale deployment's default project
 * allows these when `FILEHOST_ALLOWED_ORIGINS` is not set (the embedded one allows every
 * loopback port, `LOOPBACK_ORIGINS`).
 */
export const DEMO_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173'];

type Env = Record<string, string | undefined>;

/**
 * A key given in the environment: its prefix, then at least 24 random bytes written
 * URL-safe (32 characters of base64url), as decisions.md asks of every key and as
 * `npm run admin -- keys generate` makes them. A guessable key (too few distinct characters, a repeated pattern, a run: `keyWeakness`) is
 * refused at start.
 */
function strongKey(variable: string, key: string | undefined, prefix: string): string | undefined {
  if (key === undefined) return undefined;
  if (!key.startsWith(prefix) || !/^[A-Za-z0-9_-]{32,}$/.test(key.slice(prefix.length))) {
    throw new ConfigError(
      variable,
      `must be ${prefix} followed by at least 32 URL-safe characters (24 random bytes); make one with \`npm run admin -- keys generate\``,
    );
  }
  const weakness = keyWeakness(key.slice(prefix.length));
  if (weakness !== null) {
    throw new ConfigError(
      variable,
      `is guessable (${weakness}); make a random one with \`npm run admin -- keys generate\``,
    );
  }
  return key;
}

/** Reads the `FILEHOST_*` variables the README documents; every one is optional. */
export function configFromEnv(env: Env = process.env): ServiceConfig {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const secretKey = strongKey(
    'FILEHOST_SECRET_KEY',
    read('FILEHOST_SECRET_KEY'),
    SECRET_KEY_PREFIX,
  );
  const publishableKey = strongKey(
    'FILEHOST_PUBLISHABLE_KEY',
    read('FILEHOST_PUBLISHABLE_KEY'),
    PUBLISHABLE_KEY_PREFIX,
  );
  const plan = read('FILEHOST_PLAN');
  if (plan !== undefined && !PLANS.includes(plan as Plan)) {
    throw new ConfigError('FILEHOST_PLAN', `must be one of ${PLANS.join(', ')}`);
  }
  const origins = read('FILEHOST_ALLOWED_ORIGINS');
  const databaseUrl = read('FILEHOST_DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('FILEHOST_DATABASE_URL', 'must be a postgres:// URL');
  }
  const signingSecret = read('FILEHOST_SIGNING_SECRET');
  if (signingSecret !== undefined && signingSecret.length < 32) {
    throw new ConfigError('FILEHOST_SIGNING_SECRET', 'must be at least 32 characters');
  }
  return {
    host: read('FILEHOST_HOST') ?? '127.0.0.1',
    apiPort: integer(env, 'FILEHOST_API_PORT', 8787, 0, 65535),
    cdnPort: integer(env, 'FILEHOST_CDN_PORT', 8788, 0, 65535),
    metricsPort:
      read('FILEHOST_METRICS_PORT') === undefined
        ? undefined
        : integer(env, 'FILEHOST_METRICS_PORT', 0, 0, 65535),
    metricsHost: read('FILEHOST_METRICS_HOST') ?? '127.0.0.1',
    apiUrl: baseUrl(env, 'FILEHOST_API_URL'),
    cdnUrl: baseUrl(env, 'FILEHOST_CDN_URL'),
    dataDir: resolve(read('FILEHOST_DATA_DIR') ?? '.filehost'),
    secretKey,
    publishableKey,
    allowedOrigins: origins === undefined ? undefined : parseOrigins(origins),
    allowedTypes: allowedTypes(read('FILEHOST_ALLOWED_TYPES')),
    storageQuota:
      read('FILEHOST_STORAGE_QUOTA') === undefined
        ? undefined
        : integer(env, 'FILEHOST_STORAGE_QUOTA', 0, 0, Number.MAX_SAFE_INTEGER),
    maxPendingUploads:
      read('FILEHOST_MAX_PENDING_UPLOADS') === undefined
        ? undefined
        : integer(env, 'FILEHOST_MAX_PENDING_UPLOADS', 0, 0, 1_000_000_000),
    plan: plan as Plan | undefined,
    requireUploadToken:
      read('FILEHOST_REQUIRE_UPLOAD_TOKEN') === undefined
        ? undefined
        : boolean(read('FILEHOST_REQUIRE_UPLOAD_TOKEN'), 'FILEHOST_REQUIRE_UPLOAD_TOKEN', false),
    anonymousShare: anonymousShare(read('FILEHOST_ANONYMOUS_SHARE')),
    rateLimitPerMinute: integer(env, 'FILEHOST_RATE_LIMIT', 600, 1, 1_000_000),
    uploadUrlTtlSeconds: integer(env, 'FILEHOST_UPLOAD_URL_TTL', 3600, 1, 7 * 24 * 3600),
    uploadLifetimeSeconds: integer(env, 'FILEHOST_UPLOAD_LIFETIME', 24 * 3600, 1, 7 * 24 * 3600),
    uploadMaxLifetimeSeconds: integer(
      env,
      'FILEHOST_UPLOAD_MAX_LIFETIME',
      7 * 24 * 3600,
      1,
      30 * 24 * 3600,
    ),
    partSize: integer(env, 'FILEHOST_PART_SIZE', 16 * 1024 * 1024, MIN_PART_SIZE, 5 * 1024 ** 3),
    idleTimeoutSeconds: integer(env, 'FILEHOST_IDLE_TIMEOUT', 60, 1, 3600),
    jsonBodyTimeoutSeconds: integer(env, 'FILEHOST_JSON_BODY_TIMEOUT', 5, 1, 300),
    bodyProgressWindowSeconds: integer(env, 'FILEHOST_BODY_PROGRESS_WINDOW', 30, 1, 3600),
    maxConnectionsPerClient: integer(env, 'FILEHOST_MAX_CONNECTIONS_PER_CLIENT', 256, 0, 1_000_000),
    pendingGraceSeconds: integer(env, 'FILEHOST_PENDING_GRACE', 24 * 3600, 0, 30 * 24 * 3600),
    sweepIntervalSeconds: integer(env, 'FILEHOST_SWEEP_INTERVAL', 60, 1, 24 * 3600),
    drainSeconds: integer(env, 'FILEHOST_DRAIN_SECONDS', 10, 0, 3600),
    shutdownSeconds: integer(env, 'FILEHOST_SHUTDOWN_SECONDS', 30, 0, 24 * 3600),
    cdnCacheBytes: integer(env, 'FILEHOST_CDN_CACHE_MB', 64, 0, 64 * 1024) * 1024 * 1024,
    variantCacheBytes:
      read('FILEHOST_VARIANT_CACHE_BYTES') === undefined
        ? undefined
        : integer(env, 'FILEHOST_VARIANT_CACHE_BYTES', 0, 0, Number.MAX_SAFE_INTEGER),
    variantMaxSourceBytes: integer(
      env,
      'FILEHOST_VARIANT_MAX_SOURCE_BYTES',
      50 * 1024 * 1024,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    databaseUrl,
    s3: s3Config(read),
    signingSecret: signingSecret === undefined ? undefined : Buffer.from(signingSecret, 'utf8'),
    trustProxy: trustProxy(read('FILEHOST_TRUST_PROXY')),
    logLevel: logLevel(read('FILEHOST_LOG_LEVEL') ?? 'warn'),
    webhookUrl: webhookUrl(read('FILEHOST_WEBHOOK_URL')),
    webhookSecret: webhookSecret(read('FILEHOST_WEBHOOK_SECRET')),
    webhookAllowPrivate: boolean(
      read('FILEHOST_WEBHOOK_ALLOW_PRIVATE'),
      'FILEHOST_WEBHOOK_ALLOW_PRIVATE',
      false,
    ),
    webhookTimeoutMs: integer(env, 'FILEHOST_WEBHOOK_TIMEOUT', 15, 1, 120) * 1000,
    clamd: clamdAddress(read('FILEHOST_CLAMD')),
    clamdTimeoutMs: integer(env, 'FILEHOST_CLAMD_TIMEOUT', 30, 1, 3600) * 1000,
    scanTimeoutMs: integer(env, 'FILEHOST_SCAN_TIMEOUT', 60, 1, 3600) * 1000,
    scanConcurrency: integer(env, 'FILEHOST_SCAN_CONCURRENCY', 4, 1, 256),
    stripMetadata: stripMode(read('FILEHOST_STRIP_METADATA')),
    importAllowPrivate: boolean(
      read('FILEHOST_IMPORT_ALLOW_PRIVATE'),
      'FILEHOST_IMPORT_ALLOW_PRIVATE',
      false,
    ),
    importIdleSeconds: integer(env, 'FILEHOST_IMPORT_IDLE_TIMEOUT', 30, 1, 3600),
    importMaxSeconds: integer(env, 'FILEHOST_IMPORT_MAX_SECONDS', 600, 1, 24 * 3600),
  };
}

function clamdAddress(raw: string | undefined): ClamdAddress | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseClamdAddress(raw);
  } catch (error) {
    throw new ConfigError('FILEHOST_CLAMD', (error as Error).message);
  }
}

function stripMode(raw: string | undefined): StripMode {
  if (raw === undefined) return 'gps';
  if (!(STRIP_MODES as readonly string[]).includes(raw)) {
    throw new ConfigError('FILEHOST_STRIP_METADATA', `must be one of ${STRIP_MODES.join(', ')}`);
  }
  return raw as StripMode;
}

function allowedTypes(raw: string | undefined): string[] | null | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseTypeList(raw);
  } catch (error) {
    throw new ConfigError('FILEHOST_ALLOWED_TYPES', (error as Error).message);
  }
}

/** `FILEHOST_S3_BUCKET` selects S3 storage; the other `FILEHOST_S3_*` refine it. */
function s3Config(read: (name: string) => string | undefined): S3Config | undefined {
  const bucket = read('FILEHOST_S3_BUCKET');
  const others = [
    'FILEHOST_S3_ENDPOINT',
    'FILEHOST_S3_ACCESS_KEY_ID',
    'FILEHOST_S3_SECRET_ACCESS_KEY',
    'FILEHOST_S3_FORCE_PATH_STYLE',
    'FILEHOST_S3_CHECKSUM',
  ].filter((name) => read(name) !== undefined);
  if (bucket === undefined) {
    if (others.length > 0) {
      throw new ConfigError('FILEHOST_S3_BUCKET', `must be set when ${others[0]} is`);
    }
    return undefined;
  }
  const accessKeyId = read('FILEHOST_S3_ACCESS_KEY_ID');
  const secretAccessKey = read('FILEHOST_S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'FILEHOST_S3_ACCESS_KEY_ID' : 'FILEHOST_S3_SECRET_ACCESS_KEY',
      'set both FILEHOST_S3_ACCESS_KEY_ID and FILEHOST_S3_SECRET_ACCESS_KEY, or neither (the AWS credential chain)',
    );
  }
  const forcePathStyle = boolean(
    read('FILEHOST_S3_FORCE_PATH_STYLE'),
    'FILEHOST_S3_FORCE_PATH_STYLE',
    false,
  );
  const checksum = read('FILEHOST_S3_CHECKSUM') ?? 'md5';
  if (checksum !== 'md5' && checksum !== 'none') {
    throw new ConfigError('FILEHOST_S3_CHECKSUM', 'must be md5 or none');
  }
  const endpoint = read('FILEHOST_S3_ENDPOINT');
  return {
    bucket,
    region: read('FILEHOST_S3_REGION') ?? 'us-east-1',
    endpoint:
      endpoint === undefined ? undefined : baseUrl({ e: endpoint }, 'e', 'FILEHOST_S3_ENDPOINT'),
    forcePathStyle,
    credentials:
      accessKeyId !== undefined && secretAccessKey !== undefined
        ? { accessKeyId, secretAccessKey }
        : undefined,
    checksum,
  };
}

/** A hop count (`1`), or the proxies' addresses and CIDRs (`10.0.0.0/8,127.0.0.1`). */
function trustProxy(raw: string | undefined): number | string[] | undefined {
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw);
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(item)) {
      throw new ConfigError(
        'FILEHOST_TRUST_PROXY',
        `"${item}" is neither a hop count nor an IP address or CIDR`,
      );
    }
  }
  return items;
}

function boolean(raw: string | undefined, name: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(name, 'must be true or false');
  return raw === 'true';
}

function webhookUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = parseTargetUrl(raw);
  if (typeof url === 'string') throw new ConfigError('FILEHOST_WEBHOOK_URL', url);
  return url.href;
}

function webhookSecret(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!isWebhookSecret(raw)) {
    throw new ConfigError(
      'FILEHOST_WEBHOOK_SECRET',
      'must be whsec_ followed by the base64 of 24 to 64 random bytes',
    );
  }
  return raw;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be from ${min} to ${max}`);
  return value;
}

function baseUrl(env: Env, name: string, label = name): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(label, `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(label, 'must be an http or https URL');
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Origins compare exactly (scheme, host, port), so they are normalized the way browsers send
 * them; `scheme://host:*` allows any port (see `ground/origins.ts`).
 */
export function parseOrigins(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      try {
        return normalizeOrigin(item);
      } catch (error) {
        throw new ConfigError('allowed origins', (error as Error).message);
      }
    });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function logLevel(raw: string): ServiceConfig['logLevel'] {
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError('FILEHOST_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return raw as ServiceConfig['logLevel'];
}

/** One line for a person when the service cannot start, instead of a stack trace. */
export function describeStartError(error: unknown): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  const failure = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (failure?.code === 'EADDRINUSE') {
    return portInUseMessage(
      failure.port,
      failure.address,
      'choose other ports with FILEHOST_API_PORT and FILEHOST_CDN_PORT',
    );
  }
  if (error instanceof StartupError) return error.message;
  if (error instanceof MetadataUnavailableError) {
    return `${error.message}. ${error.remedy ?? 'Check FILEHOST_DATABASE_URL and that PostgreSQL is running and reachable.'}`;
  }
  if (error instanceof BlobUnavailableError) {
    return `${error.message}. Check FILEHOST_S3_ENDPOINT and that the storage is running and reachable.`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function anonymousShare(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const share = parseShare(raw);
  if (share === null) {
    throw new ConfigError('FILEHOST_ANONYMOUS_SHARE', 'must be a number from 0 to 1, e.g. 0.5');
  }
  return share;
}

/**
 * A share as an operator writes it (`FILEHOST_ANONYMOUS_SHARE`, `--anonymous-share`): a
 * decimal from 0 to 1; null when it is not one.
 */
export function parseShare(text: string): number | null {
  if (!/^(0|1|0?\.\d+|1\.0*|0\.)$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= 0 && value <= 1 ? value : null;
}
