import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, deploymentOf } from '../../src/server/ground/config.js';
import { newApiKey } from '../../src/server/ground/secrets.js';
import { configFromEnv, DEMO_ORIGINS } from '../../src/server/start/config-from-env.js';
import { variantBudget } from '../../src/server/variants/stored-variant.js';

describe('configuration from FILEHOST_* variables', () => {
  it('has the documented defaults', () => {
    const config = configFromEnv({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.apiPort, 8787);
    assert.equal(config.cdnPort, 8788);
    assert.equal(config.apiUrl, undefined);
    assert.match(config.dataDir, /\.filehost$/);
    assert.equal(config.rateLimitPerMinute, 600);
    assert.equal(config.uploadUrlTtlSeconds, 3600);
    assert.equal(config.allowedOrigins, undefined);
    assert.deepEqual(DEMO_ORIGINS, ['http://localhost:5173', 'http://127.0.0.1:5173']);
  });

  it('reads and normalizes values', () => {
    const config = configFromEnv({
      FILEHOST_API_URL: 'https://api.example.com/',
      FILEHOST_ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:3000/',
      FILEHOST_PLAN: 'paid',
      FILEHOST_RATE_LIMIT: '5',
    });
    assert.equal(config.apiUrl, 'https://api.example.com');
    assert.deepEqual(config.allowedOrigins, ['https://a.example.com', 'http://localhost:3000']);
    assert.equal(config.plan, 'paid');
    assert.equal(config.rateLimitPerMinute, 5);
  });

  it('serves metrics only with FILEHOST_METRICS_PORT, on loopback unless told otherwise', () => {
    assert.equal(configFromEnv({}).metricsPort, undefined);
    assert.equal(configFromEnv({}).metricsHost, '127.0.0.1');
    const set = configFromEnv({ FILEHOST_METRICS_PORT: '9464', FILEHOST_METRICS_HOST: '0.0.0.0' });
    assert.equal(set.metricsPort, 9464);
    assert.equal(set.metricsHost, '0.0.0.0');
    assert.equal(configFromEnv({ FILEHOST_METRICS_PORT: '0' }).metricsPort, 0);
    assert.throws(() => configFromEnv({ FILEHOST_METRICS_PORT: '70000' }), /FILEHOST_METRICS_PORT/);
    assert.throws(() => configFromEnv({ FILEHOST_METRICS_PORT: 'on' }), /FILEHOST_METRICS_PORT/);
  });

  it('scans with clamd only when told where it is; removes location by default', () => {
    const plain = configFromEnv({});
    assert.equal(plain.clamd, undefined);
    assert.equal(plain.clamdTimeoutMs, 30_000);
    assert.equal(plain.scanTimeoutMs, 60_000);
    assert.equal(plain.scanConcurrency, 4);
    assert.equal(plain.stripMetadata, 'gps');
    const set = configFromEnv({
      FILEHOST_CLAMD: 'tcp://127.0.0.1:3310',
      FILEHOST_CLAMD_TIMEOUT: '5',
      FILEHOST_SCAN_TIMEOUT: '20',
      FILEHOST_SCAN_CONCURRENCY: '2',
      FILEHOST_STRIP_METADATA: 'all',
    });
    assert.deepEqual(set.clamd, { host: '127.0.0.1', port: 3310 });
    assert.equal(set.clamdTimeoutMs, 5_000);
    assert.equal(set.scanTimeoutMs, 20_000);
    assert.equal(set.scanConcurrency, 2);
    assert.equal(set.stripMetadata, 'all');
    assert.deepEqual(configFromEnv({ FILEHOST_CLAMD: '/run/clamav/clamd.ctl' }).clamd, {
      path: '/run/clamav/clamd.ctl',
    });
  });

  it("keeps variants within each project's default budget unless told one; 50 MiB originals at most", () => {
    const plain = configFromEnv({});
    assert.equal(plain.variantCacheBytes, undefined);
    assert.equal(plain.variantMaxSourceBytes, 50 * 1024 * 1024);
    const set = configFromEnv({
      FILEHOST_VARIANT_CACHE_BYTES: '0',
      FILEHOST_VARIANT_MAX_SOURCE_BYTES: '200000000',
    });
    assert.equal(set.variantCacheBytes, 0);
    assert.equal(set.variantMaxSourceBytes, 200_000_000);
    // The default budget: a tenth of the quota, at most 2 GiB (2 GiB without a quota).
    assert.equal(variantBudget(10_000_000_000, undefined), 1_000_000_000);
    assert.equal(variantBudget(30_000_000_000, undefined), 2 * 1024 ** 3);
    assert.equal(variantBudget(3_000_000, undefined), 300_000);
    assert.equal(variantBudget(null, undefined), 2 * 1024 ** 3);
    assert.equal(variantBudget(3_000_000, 5), 5);
  });

  it('checks S3 parts with Content-MD5 unless told none', () => {
    assert.equal(configFromEnv({ FILEHOST_S3_BUCKET: 'b' }).s3?.checksum, 'md5');
    const none = { FILEHOST_S3_BUCKET: 'b', FILEHOST_S3_CHECKSUM: 'none' };
    assert.equal(configFromEnv(none).s3?.checksum, 'none');
  });

  it('reads FILEHOST_ANONYMOUS_SHARE as a number from 0 to 1, and nothing else', () => {
    assert.equal(configFromEnv({}).anonymousShare, undefined);
    for (const [text, share] of [
      ['0', 0],
      ['0.25', 0.25],
      ['.5', 0.5],
      ['1', 1],
      ['1.0', 1],
    ] as const) {
      assert.equal(configFromEnv({ FILEHOST_ANONYMOUS_SHARE: text }).anonymousShare, share, text);
    }
    for (const text of ['1.5', '-0.1', 'half', '50%', '0x1', '1e-1']) {
      assert.throws(
        () => configFromEnv({ FILEHOST_ANONYMOUS_SHARE: text }),
        (error: unknown) =>
          error instanceof ConfigError && /FILEHOST_ANONYMOUS_SHARE: .*0 to 1/.test(error.message),
        text,
      );
    }
  });

  it('refuses a guessable key set by environment, naming the command that makes one', () => {
    for (const random of [
      'a'.repeat(36),
      'abcdefghijklmnopqrstuvwxyzABCDEF',
      'Kq3xKq3xKq3xKq3xKq3xKq3xKq3xKq3xKq3x',
      '0123456789abcdef0123456789abcdef',
    ]) {
      assert.throws(
        () => configFromEnv({ FILEHOST_SECRET_KEY: `sk_live_${random}` }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(
            error.message,
            /FILEHOST_SECRET_KEY: is guessable .*npm run admin -- keys generate/,
          );
          return true;
        },
        random,
      );
    }
    const made = newApiKey('secret');
    assert.equal(configFromEnv({ FILEHOST_SECRET_KEY: made }).secretKey, made);
  });

  it('refuses private targets by default on both deployments (opt-in); a 30-s window, 600 s at most', () => {
    const pg = { FILEHOST_DATABASE_URL: 'postgres://u@127.0.0.1/db' };
    for (const env of [{}, pg]) {
      assert.equal(configFromEnv(env).importAllowPrivate, false);
      assert.equal(configFromEnv(env).webhookAllowPrivate, false);
    }
    assert.equal(configFromEnv({}).importIdleSeconds, 30);
    assert.equal(configFromEnv({}).importMaxSeconds, 600);
    assert.equal(configFromEnv({}).bodyProgressWindowSeconds, 30);
    for (const env of [{}, pg]) {
      const allowed = configFromEnv({
        ...env,
        FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
        FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      assert.equal(allowed.importAllowPrivate, true);
      assert.equal(allowed.webhookAllowPrivate, true);
    }
    assert.equal(configFromEnv({ FILEHOST_IMPORT_IDLE_TIMEOUT: '5' }).importIdleSeconds, 5);
    assert.equal(configFromEnv({ FILEHOST_IMPORT_MAX_SECONDS: '3' }).importMaxSeconds, 3);
    assert.equal(
      configFromEnv({ FILEHOST_BODY_PROGRESS_WINDOW: '2' }).bodyProgressWindowSeconds,
      2,
    );
    for (const [name, value] of [
      ['FILEHOST_IMPORT_ALLOW_PRIVATE', 'maybe'],
      ['FILEHOST_WEBHOOK_ALLOW_PRIVATE', 'maybe'],
      ['FILEHOST_IMPORT_IDLE_TIMEOUT', '0'],
      ['FILEHOST_IMPORT_MAX_SECONDS', '0'],
      ['FILEHOST_BODY_PROGRESS_WINDOW', '0'],
    ] as const) {
      assert.throws(() => configFromEnv({ [name]: value }), new RegExp(name));
    }
  });

  it('names the variable that is wrong', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ FILEHOST_API_PORT: 'abc' }, /FILEHOST_API_PORT/],
      [{ FILEHOST_API_PORT: '70000' }, /FILEHOST_API_PORT/],
      [{ FILEHOST_PLAN: 'gold' }, /FILEHOST_PLAN/],
      [{ FILEHOST_SECRET_KEY: 'pk_live_x' }, /FILEHOST_SECRET_KEY/],
      [{ FILEHOST_SECRET_KEY: 'sk_live_a' }, /FILEHOST_SECRET_KEY.*at least 32/],
      [{ FILEHOST_PUBLISHABLE_KEY: `pk_live_${'x'.repeat(31)}` }, /FILEHOST_PUBLISHABLE_KEY/],
      [{ FILEHOST_SECRET_KEY: `sk_live_${'x'.repeat(40)}/` }, /FILEHOST_SECRET_KEY/],
      [{ FILEHOST_API_URL: 'ftp://x' }, /FILEHOST_API_URL/],
      [{ FILEHOST_ALLOWED_ORIGINS: 'https://a.test/path' }, /origin/],
      [{ FILEHOST_PART_SIZE: '1024' }, /FILEHOST_PART_SIZE/],
      [{ FILEHOST_S3_BUCKET: 'b', FILEHOST_S3_CHECKSUM: 'sha256' }, /FILEHOST_S3_CHECKSUM/],
      [{ FILEHOST_S3_CHECKSUM: 'none' }, /FILEHOST_S3_BUCKET/],
      [{ FILEHOST_CLAMD: 'localhost:3310' }, /FILEHOST_CLAMD/],
      [{ FILEHOST_CLAMD: 'tcp://localhost' }, /FILEHOST_CLAMD/],
      [{ FILEHOST_CLAMD_TIMEOUT: '0' }, /FILEHOST_CLAMD_TIMEOUT/],
      [{ FILEHOST_SCAN_TIMEOUT: '0' }, /FILEHOST_SCAN_TIMEOUT/],
      [{ FILEHOST_SCAN_CONCURRENCY: '0' }, /FILEHOST_SCAN_CONCURRENCY/],
      [{ FILEHOST_STRIP_METADATA: 'exif' }, /FILEHOST_STRIP_METADATA/],
      [{ FILEHOST_VARIANT_CACHE_BYTES: '1 GB' }, /FILEHOST_VARIANT_CACHE_BYTES/],
      [{ FILEHOST_VARIANT_MAX_SOURCE_BYTES: '0' }, /FILEHOST_VARIANT_MAX_SOURCE_BYTES/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => configFromEnv(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });
});

describe('the deployment a configuration makes', () => {
  const s3 = { FILEHOST_S3_BUCKET: 'b', FILEHOST_S3_ENDPOINT: 'http://127.0.0.1:9' };
  const pg = { FILEHOST_DATABASE_URL: 'postgres://u@127.0.0.1/db' };
  it('is embedded by default: metadata of its own, the data directory its alone', () => {
    assert.deepEqual(deploymentOf(configFromEnv({})), {
      sharedMetadata: false,
      usesDataDir: true,
    });
  });
  it('at scale (PostgreSQL and S3) shares metadata and keeps nothing in a data directory', () => {
    assert.deepEqual(deploymentOf(configFromEnv({ ...pg, ...s3 })), {
      sharedMetadata: true,
      usesDataDir: false,
    });
  });
  it('with PostgreSQL and the local disk, shares metadata but still owns its data directory', () => {
    assert.deepEqual(deploymentOf(configFromEnv(pg)), { sharedMetadata: true, usesDataDir: true });
  });
});
