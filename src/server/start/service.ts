import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApiApp } from '../api/app.js';
import { cachedFileBytes, ServingCache } from '../cache/serving-cache.js';
import { buildCdnApp } from '../cdn/cdn.js';
import type { ServiceContext } from '../context.js';
import type { WebhookRow } from '../db/metadata-store.js';
import { ensureConfiguredWebhook } from '../events/configured-webhook.js';
import { EventDeliverer } from '../events/deliverer.js';
import { deploymentOf, type ServiceConfig } from '../ground/config.js';
import { StartupError } from '../ground/startup-error.js';
import { literalTargetClass } from '../ground/targets.js';
import { Imports } from '../imports/importer.js';
import { ClamdScanner } from '../ingest/clamd.js';
import { MetadataStripper, STRIP_TASK_TIMEOUT_MS } from '../ingest/strip-location.js';
import type { MetricsServer } from '../metrics/metrics-server.js';
import { linkKey } from '../rules/signed-link.js';
import { DELETE_DUE_INTERVAL_MS, deleteDueFiles, recover, sweep } from '../uploads/sweeper.js';
import { ImageVariants } from '../variants/stored-variant.js';
import { VariantEncoder } from '../variants/variant-encoder.js';
import { type DefaultProject, ensureDefaultProject } from './bootstrap.js';
import { openStores, type Stores } from './deployment.js';
import {
  drainThenClose,
  RequestsUnderWay,
  type ShutdownTiming,
  type StopOutcome,
} from './draining.js';
import { metricsFor, startMetrics } from './service-metrics-start.js';

/** How often an instance looks for deliveries that came due (retries, other instances' work). */
const WEBHOOK_POLL_MS = 1000;

export interface RunningService {
  apiUrl: string;
  cdnUrl: string;
  defaultProject: DefaultProject;
  /** The default project's endpoint from `FILEHOST_WEBHOOK_URL`, with its secret; or null. */
  webhook: WebhookRow | null;
  context: ServiceContext;
  /** `http://host:port` of `/metrics` (`FILEHOST_METRICS_PORT`); null when metrics are off. */
  metricsUrl: string | null;
  /** Stops accepting, ends open connections, closes the stores, releases the data dir. */
  close(): Promise<void>;
  /**
   * Stops without loss (SIGTERM, `start/draining.ts`): unready at once, still serving for
   * the drain, then what is under way finishes, then `close`, all within the bound.
   */
  drainThenClose(timing: ShutdownTiming): Promise<StopOutcome>;
}

/**
 * The one entry of start-up (`start/`: this, the stores a deployment opens, the data
 * directory, the default project, the command-line life in `run.ts` and `main.ts`).
 * Starts the API and the CDN on the stores the configuration picks (`openStores`), or on
 * the ones given. Recovery from a crash runs before the first request is served.
 */
export async function startService(
  config: ServiceConfig,
  stores?: Stores,
): Promise<RunningService> {
  refuseUnreachableWebhook(config);
  const log = pino({ level: config.logLevel });
  const urls = { api: '', cdn: '' };
  const opened = stores ?? (await openStores(config, () => urls.api));
  const apps: FastifyInstance[] = [];
  const timers: NodeJS.Timeout[] = [];
  let deliverer: EventDeliverer | undefined;
  const stripper =
    config.stripMetadata === 'none'
      ? null
      : new MetadataStripper({ taskTimeoutMs: STRIP_TASK_TIMEOUT_MS });
  let imports: Imports | undefined;
  let metricsServer: MetricsServer | null = null;
  const underWay = new RequestsUnderWay();
  let closed: Promise<void> | undefined;
  // Once, however many ask (a drained stop ends in it, and its caller may close too).
  const close = () => {
    closed ??= (async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(apps.map((app) => app.close()));
      await metricsServer?.close();
      // Imports under way fail cleanly (with their events) while the stores are still open.
      await imports?.stop();
      await stripper?.close();
      await deliverer?.stop();
      await opened.close();
    })();
    return closed;
  };
  try {
    imports = new Imports();
    const ctx: ServiceContext = {
      config,
      urls,
      db: opened.db,
      blobs: opened.blobs,
      rateLimiter: opened.rateLimiter,
      reserve: opened.reserve,
      servingCache: new ServingCache({
        maxBytes: config.cdnCacheBytes,
        maxFileBytes: cachedFileBytes(config.cdnCacheBytes),
        trustRecords: !deploymentOf(config).sharedMetadata,
      }),
      variants: new ImageVariants({
        blobs: opened.blobs,
        db: opened.db,
        encoder: new VariantEncoder(),
        trustMemory: !deploymentOf(config).sharedMetadata,
        limits: {
          cacheBytes: config.variantCacheBytes,
          maxSourceBytes: config.variantMaxSourceBytes,
        },
        log,
      }),
      now: Date.now,
      log,
      events: { kick() {} },
      imports,
      linkKey: linkKey(opened.signingSecret),
      scanner: config.clamd
        ? new ClamdScanner(config.clamd, {
            silenceMs: config.clamdTimeoutMs,
            verdictMs: config.scanTimeoutMs,
            concurrency: config.scanConcurrency,
          })
        : null,
      stripper,
      draining: () => underWay.draining,
      metrics: metricsFor(config),
    };
    imports.attach(ctx);
    deliverer = new EventDeliverer(ctx);
    ctx.events = deliverer;

    await recover(ctx, { exclusive: opened.exclusive });
    const defaultProject = await ensureDefaultProject(ctx.db, config);
    const webhook = await ensureConfiguredWebhook(
      ctx.db,
      defaultProject.project,
      config,
      ctx.now(),
    );

    const api = await buildApiApp(ctx);
    apps.push(api);
    const cdn = buildCdnApp(ctx);
    apps.push(cdn);
    for (const app of apps) underWay.watch(app.server);
    await api.listen({ host: config.host, port: config.apiPort });
    await cdn.listen({ host: config.host, port: config.cdnPort });
    urls.api = config.apiUrl ?? localUrl(api);
    urls.cdn = config.cdnUrl ?? localUrl(cdn);
    metricsServer = await startMetrics(ctx);
    // Events recorded before a crash or a restart go out now; retries as they come due.
    deliverer.start({ pollIntervalMs: WEBHOOK_POLL_MS });

    timers.push(
      setInterval(() => {
        ctx.rateLimiter
          .prune()
          .catch((error: unknown) => log.warn({ err: error }, 'rate limit prune failed'));
        sweep(ctx).catch((error: unknown) => log.error({ err: error }, 'sweep failed'));
      }, config.sweepIntervalSeconds * 1000).unref(),
      setInterval(
        () => {
          deleteDueFiles(ctx).catch((error: unknown) =>
            log.error({ err: error }, 'deleting files whose time came failed'),
          );
        },
        Math.min(DELETE_DUE_INTERVAL_MS, config.sweepIntervalSeconds * 1000),
      ).unref(),
    );
    const running = imports;
    const delivering = deliverer;
    return {
      apiUrl: urls.api,
      cdnUrl: urls.cdn,
      defaultProject,
      webhook,
      context: ctx,
      metricsUrl: metricsServer?.url ?? null,
      close,
      drainThenClose: (timing) =>
        drainThenClose(
          {
            servers: apps.map((app) => app.server),
            underWay,
            backgroundIdle: () => running.idle(),
            stopBackground: async () => {
              for (const timer of timers) clearInterval(timer);
              await delivering.stop();
            },
            close,
            log,
          },
          timing,
        ),
    };
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

/**
 * `FILEHOST_WEBHOOK_URL` at an address every delivery would refuse is a start-up error, not
 * a stream of failed deliveries found much later (decisions.md, "Private targets are
 * opt-in"). Only what is known without a resolver is judged here; a name is checked at each
 * delivery, as every endpoint is.
 */
function refuseUnreachableWebhook(config: ServiceConfig): void {
  if (config.webhookUrl === undefined) return;
  const kind = literalTargetClass(new URL(config.webhookUrl));
  if (kind === 'forbidden') {
    throw new StartupError(
      `FILEHOST_WEBHOOK_URL (${config.webhookUrl}) is a link-local or metadata address, which webhooks never reach; point it at the receiver's own address.`,
    );
  }
  if (kind === 'private' && !config.webhookAllowPrivate) {
    throw new StartupError(
      `FILEHOST_WEBHOOK_URL (${config.webhookUrl}) is a loopback or private address, which webhooks reach only with FILEHOST_WEBHOOK_ALLOW_PRIVATE=true.`,
    );
  }
}
