import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApiApp } from './app.js';
import { type DefaultProject, ensureDefaultProject } from './bootstrap.js';
import { buildCdnApp } from './cdn.js';
import type { ServiceConfig } from './config.js';
import type { ServiceContext } from './context.js';
import { loadOrCreateSecret, lockDataDir } from './data-dir.js';
import { SqliteMetadataStore } from './db/sqlite-store.js';
import { RateLimiter } from './rate-limit.js';
import { PartSigner } from './signing.js';
import { LocalDiskBlobStore } from './storage/local-disk-store.js';
import { recover, sweep } from './sweeper.js';

export interface RunningService {
  apiUrl: string;
  cdnUrl: string;
  defaultProject: DefaultProject;
  context: ServiceContext;
  /** Stops accepting, ends open connections, closes the database, releases the data dir. */
  close(): Promise<void>;
}

/**
 * Starts the API and the CDN with the embedded default storage (SQLite and the local
 * disk under `dataDir`). Recovery from a crash runs before the first request is served.
 */
export async function startService(config: ServiceConfig): Promise<RunningService> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(config.dataDir);
  const log = pino({ level: config.logLevel });
  const db = new SqliteMetadataStore(join(config.dataDir, 'filehost.db'));
  const apps: FastifyInstance[] = [];
  const timers: NodeJS.Timeout[] = [];
  const close = async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(apps.map((app) => app.close()));
    await db.close();
    await lock.release();
  };
  try {
    const signingSecret = await loadOrCreateSecret(join(config.dataDir, 'signing.key'));
    const ctx: ServiceContext = {
      config,
      urls: { api: '', cdn: '' },
      db,
      blobs: new LocalDiskBlobStore(join(config.dataDir, 'storage')),
      signer: new PartSigner(signingSecret, () => ctx.urls.api),
      rateLimiter: new RateLimiter(config.rateLimitPerMinute),
      now: Date.now,
      log,
    };
    await recover(ctx);
    const defaultProject = await ensureDefaultProject(db, config);

    const api = await buildApiApp(ctx);
    apps.push(api);
    const cdn = buildCdnApp(ctx);
    apps.push(cdn);
    await api.listen({ host: config.host, port: config.apiPort });
    await cdn.listen({ host: config.host, port: config.cdnPort });
    ctx.urls = {
      api: config.apiUrl ?? localUrl(api),
      cdn: config.cdnUrl ?? localUrl(cdn),
    };

    timers.push(
      setInterval(() => {
        ctx.rateLimiter.prune();
        sweep(ctx).catch((error: unknown) => log.error({ err: error }, 'sweep failed'));
      }, config.sweepIntervalSeconds * 1000).unref(),
    );
    return { apiUrl: ctx.urls.api, cdnUrl: ctx.urls.cdn, defaultProject, context: ctx, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `http://localhost:<port>`, the documented default public URL. */
function localUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('The server is not bound to a port');
  return `http://localhost:${address.port}`;
}
