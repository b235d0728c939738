import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsPart } from './bench-ablation.js';
import { HttpTraffic } from './http-traffic.js';

/** How an upload ended: made ready, refused (the client's), failed (the service's), expired. */
const UPLOAD_OUTCOMES = ['ready', 'refused', 'failed', 'expired'] as const;
export type UploadOutcome = (typeof UPLOAD_OUTCOMES)[number];

/** A scan's verdict; `unavailable`: clamd gave none (unreachable, gone, silent). */
const SCAN_OUTCOMES = ['clean', 'infected', 'unscannable', 'unavailable'] as const;
export type ScanOutcome = (typeof SCAN_OUTCOMES)[number];

/** A webhook attempt: delivered, failed with attempts left, failed for good. */
const ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** An import from a URL: its file made ready, failed (with its `importError`), cancelled. */
const IMPORT_OUTCOMES = ['ready', 'failed', 'cancelled'] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

/** The webhook outbox as the database has it at a scrape. */
export interface OutboxBacklog {
  /** Deliveries not yet delivered nor given up. */
  pending: number;
  /** The due time (ms) of the longest-waiting delivery that is due; null when none is. */
  oldestDueAt: number | null;
}

/** What is read at each scrape rather than counted as it happens. */
export interface ScrapeSources {
  outbox(): Promise<OutboxBacklog>;
  variants(): { running: number; queued: number; refused: number; abandoned: number };
  scans(): { running: number; waiting: number } | null;
  cdnCache(): { entries: number; bytes: number };
  now(): number;
  warn(error: unknown, what: string): void;
}

/** prom-client's default metrics that break Prometheus' naming rules (see the constructor). */
const MISNAMED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Scans of a few kilobytes take milliseconds; an archive bomb is cut at the scan timeout. */
const SCAN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** A thumbnail takes tens of milliseconds; an AVIF of a large photo a second or two. */
const ENCODE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * One service instance's metrics (decisions.md, "Operating the service"), in a registry
 * of its own: tests start several instances in one process, and each scrape must show one
 * instance. Events are counted where they happen (the hooks call the methods here); what
 * is a state (the outbox's backlog, queues, the cache's size) is read at each scrape from
 * `ScrapeSources`. Labels hold only route templates and small fixed sets of words: never
 * an id, a key, a token, a name or a URL.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly http: HttpTraffic;
  /** Parts a bench took out (`bench-ablation.ts`); empty in any real service. */
  readonly without: ReadonlySet<MetricsPart>;
  /** Bytes of request bodies and headers the API read (uploads, mostly). */
  apiReceivedBytes = 0;
  /** Bytes of files and variants the CDN sent (bodies only). */
  cdnServedBytes = 0;
  /** CDN lookups answered from memory, and those that went to the stores. */
  cdnCacheHits = 0;
  cdnCacheMisses = 0;
  readonly #uploads: Counter<'outcome'>;
  readonly #scans: Histogram<'verdict'>;
  readonly #encodes: Histogram<'format'>;
  readonly #attempts: Counter<'outcome'>;
  readonly #imports: Counter<'outcome'>;
  #sources: ScrapeSources | null = null;

  constructor(without: ReadonlySet<MetricsPart> = new Set()) {
    this.without = without;
    const unregistered = without.has('registered-metrics');
    const registers = unregistered ? [] : [this.registry];
    this.http = new HttpTraffic(registers, !without.has('parser-refusals'));
    if (!unregistered && !without.has('default-collectors')) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters, which `promtool check metrics` rejects; the same numbers
      // are the sums of `nodejs_active_handles` and friends, by type.
      for (const name of MISNAMED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
    }
    this.#uploads = new Counter({
      name: 'filehost_uploads_total',
      help: "Uploads that ended, by outcome: ready, refused (the client's: type, size, quota, malware), failed (the service's), expired (never completed).",
      labelNames: ['outcome'],
      registers,
    });
    this.#scans = new Histogram({
      name: 'filehost_scan_duration_seconds',
      help: "Malware scans by clamd, by verdict (clean, infected, unscannable, unavailable): time from the scan's turn to its verdict.",
      labelNames: ['verdict'],
      buckets: SCAN_BUCKETS,
      registers,
    });
    this.#encodes = new Histogram({
      name: 'filehost_variant_encode_duration_seconds',
      help: 'Image variants decoded and encoded, by output format: time of the encode itself (its turn taken).',
      labelNames: ['format'],
      buckets: ENCODE_BUCKETS,
      registers,
    });
    this.#attempts = new Counter({
      name: 'filehost_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome: delivered, retrying (failed, tried again later), failed (failed, given up).',
      labelNames: ['outcome'],
      registers,
    });
    this.#imports = new Counter({
      name: 'filehost_imports_total',
      help: 'Imports from a URL that ended, by outcome: ready, failed, cancelled.',
      labelNames: ['outcome'],
      registers,
    });
    readAtScrape(Counter, {
      name: 'filehost_api_received_bytes_total',
      help: "Bytes the API read from clients' connections (request lines, headers and bodies: uploads, mostly), counted as each answer ends.",
      registers,
      read: () => this.apiReceivedBytes,
    });
    readAtScrape(Counter, {
      name: 'filehost_cdn_served_bytes_total',
      help: 'Bytes of files and image variants the CDN sent (bodies only), counted as each answer starts.',
      registers,
      read: () => this.cdnServedBytes,
    });
    readAtScrape(Counter, {
      name: 'filehost_cdn_cache_lookups_total',
      help: 'CDN requests for a file, by result: hit (answered from memory), miss (read from the stores).',
      registers,
      label: 'result',
      read: () => ({ hit: this.cdnCacheHits, miss: this.cdnCacheMisses }),
    });
    this.#scrapedGauges(registers);
    // Every outcome shows from the start at 0: a series that appears only with its first
    // event hides that event from `rate` and `increase`, and from an alert on it.
    for (const outcome of UPLOAD_OUTCOMES) this.#uploads.inc({ outcome }, 0);
    for (const verdict of SCAN_OUTCOMES) this.#scans.zero({ verdict });
    for (const outcome of ATTEMPT_OUTCOMES) this.#attempts.inc({ outcome }, 0);
    for (const outcome of IMPORT_OUTCOMES) this.#imports.inc({ outcome }, 0);
  }

  /** Names what is read at each scrape; until then those metrics show nothing. */
  watch(sources: ScrapeSources): void {
    this.#sources = sources;
  }

  upload(outcome: UploadOutcome): void {
    this.#uploads.inc({ outcome });
  }

  scan(verdict: ScanOutcome, seconds: number): void {
    this.#scans.observe({ verdict }, seconds);
  }

  encode(format: string, seconds: number): void {
    this.#encodes.observe({ format }, seconds);
  }

  webhookAttempt(outcome: AttemptOutcome): void {
    this.#attempts.inc({ outcome });
  }

  importEnded(outcome: ImportOutcome): void {
    this.#imports.inc({ outcome });
  }

  /** The exposition of every metric, and its media type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  #scrapedGauges(registers: Registry[]): void {
    const sources = () => this.#sources;
    // Both outbox gauges come from one query per scrape, each awaiting it in its own
    // `collect`: a gauge set from another's collect would be printed before the query
    // answered (the registry reads every metric at once), so it showed the scrape before.
    let reading: Promise<OutboxBacklog | null> | null = null;
    const backlogOnce = (): Promise<OutboxBacklog | null> => {
      const watched = sources();
      if (!watched) return Promise.resolve(null);
      reading ??= watched
        .outbox()
        .catch((error: unknown) => {
          // The database did not answer: no value is better than an old one.
          watched.warn(error, 'the webhook outbox could not be read for metrics');
          return { pending: Number.NaN, oldestDueAt: Number.NaN };
        })
        .finally(() => {
          reading = null;
        });
      return reading;
    };
    new Gauge({
      name: 'filehost_webhook_outbox_pending',
      help: 'Webhook deliveries neither delivered nor given up (the whole outbox: at scale every instance shows the same).',
      registers,
      async collect() {
        const backlog = await backlogOnce();
        if (backlog) this.set(backlog.pending);
      },
    });
    new Gauge({
      name: 'filehost_webhook_outbox_oldest_due_seconds',
      help: 'How long the longest-waiting due webhook delivery has been due (0: none is waiting).',
      registers,
      async collect() {
        const backlog = await backlogOnce();
        const watched = sources();
        if (!backlog || !watched) return;
        this.set(
          backlog.oldestDueAt === null
            ? 0
            : Math.max(0, (watched.now() - backlog.oldestDueAt) / 1000),
        );
      },
    });
    readAtScrape(Gauge, {
      name: 'filehost_variant_encodes',
      help: 'Image variant jobs, by state: running (decoding or encoding), queued (waiting for a turn).',
      registers,
      label: 'state',
      read: () => {
        const stats = sources()?.variants();
        return stats ? { running: stats.running, queued: stats.queued } : null;
      },
    });
    readAtScrape(Counter, {
      name: 'filehost_variant_refusals_total',
      help: 'Image variant requests answered 503, by reason: busy (the queue was full or no turn came in time), timeout (the encode ran past its budget).',
      registers,
      label: 'reason',
      read: () => {
        const stats = sources()?.variants();
        return stats ? { busy: stats.refused, timeout: stats.abandoned } : null;
      },
    });
    readAtScrape(Gauge, {
      name: 'filehost_scans',
      help: 'Malware scans, by state: running (streaming to clamd), waiting (for a turn).',
      registers,
      label: 'state',
      read: () => sources()?.scans() ?? null,
    });
    readAtScrape(Gauge, {
      name: 'filehost_cdn_cache_bytes',
      help: 'Bytes of files the CDN keeps in memory.',
      registers,
      read: () => sources()?.cdnCache().bytes ?? null,
    });
  }
}

/**
 * A counter or gauge whose value is read at each scrape from a count kept elsewhere (a plain
 * number the hot path adds to, or a component's own state): `read` answers one value, or one
 * per value of `label`; null leaves the metric as it was (its source not there yet).
 */
function readAtScrape(
  kind: typeof Counter | typeof Gauge,
  options: {
    name: string;
    help: string;
    registers: Registry[];
    label?: string;
    read: () => number | Record<string, number> | null;
  },
): void {
  const { label, read } = options;
  new kind({
    name: options.name,
    help: options.help,
    labelNames: label === undefined ? [] : [label],
    registers: options.registers,
    collect(this: Counter | Gauge) {
      const values = read();
      if (values === null) return;
      this.reset();
      const add = (labels: Record<string, string>, value: number) =>
        this instanceof Gauge ? this.set(labels, value) : this.inc(labels, value);
      if (typeof values === 'number') add({}, values);
      else
        for (const [key, value] of Object.entries(values)) add({ [label as string]: key }, value);
    },
  });
}
