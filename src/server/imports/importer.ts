import type { EventDraft, ImportErrorState, ImportState } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { crashPoint } from '../ground/crash-points.js';
import { ServiceError } from '../ground/errors.js';
import { normalizeMediaType } from '../ground/media-type.js';
import { newId } from '../ground/secrets.js';
import { type Ingested, infectedEvent, ingestStored } from '../ingest/ingest.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import { sanitizeName } from '../rules/names.js';
import { toFileRecord } from '../rules/records.js';
import { readHead, storedType } from '../rules/stored-type.js';
import { requireTypeFor } from '../rules/upload-tokens.js';
import type { ImportJob, ImportRunner } from './import-job.js';
import { ImportFailure, openRemoteFile } from './remote-file.js';

/** The scanner's refusals of a file (`ingestStored`), which end an import with their code. */
const SCAN_REFUSALS = new Set(['infected', 'unscannable']);

/** How often the instance fetching an import writes its progress (and renews its lease). */
export const IMPORT_PROGRESS_MS = 1000;
/** Bytes handed to the store at once. */
const WRITE_BYTES = 1024 * 1024;

/**
 * How long an import's lease lasts without renewal: three idle timeouts (as a one-request
 * upload's receiving lease), at least ten progress writes, so a database that is slow for a
 * moment never makes a live import look abandoned.
 */
export function importLeaseMs(ctx: Pick<IngestContext, 'config'>): number {
  return Math.max(10 * IMPORT_PROGRESS_MS, 3 * ctx.config.idleTimeoutSeconds * 1000);
}

/** A pending import deleted while it ran: nothing to report, only bytes to remove. */
class Cancelled extends Error {}

/**
 * The scanner refused the fetched file: `infected` (its `signature` goes in the
 * `file.infected` event sent in place of `file.import_failed`) or `unscannable`.
 */
class ScanRefused extends ImportFailure {
  readonly signature: string | null;
  constructor(refusal: ServiceError) {
    super(refusal.code === 'infected' ? 'infected' : 'unscannable', refusal.message);
    const { signature } = refusal.extra;
    this.signature = typeof signature === 'string' ? signature : null;
  }
}

/**
 * The imports this process runs. Each runs once, here, where it was asked for: its row's
 * lease (`expiresAt`) is renewed with every progress write, and an import whose lease runs
 * out (the process died) is failed by the sweeper of any instance, never fetched again —
 * a URL that brought an instance down is not given a second one to bring down, and a
 * partial file never becomes ready (see docs/api-imports.md).
 */
export class Imports implements ImportRunner {
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #stopped = false;
  #ctx: IngestContext | null = null;

  /** The context imports run in: set once, when the service has made it. */
  attach(ctx: IngestContext): void {
    this.#ctx = ctx;
  }

  /** Starts fetching; answers at once. */
  start(job: ImportJob): void {
    const ctx = this.#ctx;
    if (!ctx) throw new Error('Imports.start before attach');
    const controller = new AbortController();
    if (this.#stopped) controller.abort(stoppedFailure());
    const done = runImport(ctx, job, controller).finally(() => {
      this.#running.delete(job.row.id);
    });
    this.#running.set(job.row.id, { controller, done });
  }

  /** Imports under way here (tests, and the benchmark, wait for them). */
  get size(): number {
    return this.#running.size;
  }

  /** Resolves once every import under way here has ended (a draining stop waits for them). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) {
      await Promise.allSettled([...this.#running.values()].map(({ done }) => done));
    }
  }

  /**
   * Stops every import under way: each fails cleanly (`import_failed`, the service
   * stopped), with its event, before the stores close.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    const all = [...this.#running.values()];
    for (const { controller } of all) controller.abort(stoppedFailure());
    await Promise.allSettled(all.map(({ done }) => done));
  }
}

const stoppedFailure = () =>
  new ImportFailure('import_failed', 'the service stopped before the import finished');

async function runImport(
  ctx: IngestContext,
  job: ImportJob,
  controller: AbortController,
): Promise<void> {
  const { id } = job.row;
  const state: ImportState = { receivedBytes: 0, totalBytes: null, error: null };
  const leaseMs = importLeaseMs(ctx);
  const renewal = setInterval(() => {
    ctx.db
      .recordImportProgress(id, { ...state }, ctx.now() + leaseMs)
      .then((alive) => {
        if (!alive && !controller.signal.aborted) controller.abort(new Cancelled());
      })
      .catch((error: unknown) => {
        ctx.log.warn({ err: error, id }, 'could not record the progress of an import');
      });
  }, IMPORT_PROGRESS_MS);
  renewal.unref();
  // However fast it goes, an import holds its reservation for at most this long.
  const maxSeconds = ctx.config.importMaxSeconds;
  const deadline = setTimeout(
    () =>
      controller.abort(
        new ImportFailure('import_timeout', `the import took longer than ${maxSeconds} s`),
      ),
    maxSeconds * 1000,
  );
  deadline.unref();
  try {
    const remote = await openRemoteFile(job.url, {
      allowPrivate: ctx.config.importAllowPrivate,
      maxBytes: job.maxBytes,
      idleMs: ctx.config.importIdleSeconds * 1000,
      signal: controller.signal,
      target: ctx.config.importTargetForTests,
      tooLargeMessage: job.maxBytesReason,
    });
    state.totalBytes = remote.declaredBytes;
    const declaredType = remoteType(remote.contentType);
    // Counted as it arrives, and handed to the store in writes of about 1 MiB: the socket's
    // 64 KiB reads, written one by one, cost a disk write each (a third of the speed).
    const counted = async function* () {
      let batch: Buffer[] = [];
      let batched = 0;
      for await (const chunk of remote.body as AsyncIterable<Buffer>) {
        state.receivedBytes += chunk.length;
        batch.push(chunk);
        batched += chunk.length;
        if (batched >= WRITE_BYTES) {
          yield batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch, batched);
          batch = [];
          batched = 0;
        }
      }
      if (batched > 0) yield Buffer.concat(batch, batched);
    };
    const { size } = await ctx.blobs.put(id, counted(), { contentType: declaredType });
    if (controller.signal.aborted) throw controller.signal.reason;
    // Fetched in time: what remains (scan, location) is the service's own work.
    clearTimeout(deadline);
    if (size === 0) throw new ImportFailure('import_failed', 'The server sent no bytes.');
    const mime = await storedType(declaredType, await readHead(ctx.blobs, id, size));
    try {
      requireTypeFor(job.allowedTypes, job.policy, mime, 'recognised');
    } catch (error) {
      if (error instanceof ServiceError) throw new ImportFailure('unsupported_type', error.message);
      throw error;
    }
    // Scanned and stripped of location as every file is before it is ready. Refused by the
    // scanner: the import fails with that reason, which its follower reads.
    let ingested: Ingested;
    try {
      ingested = await ingestStored(ctx, job.row, 'pending', mime);
    } catch (error) {
      if (error instanceof ServiceError && SCAN_REFUSALS.has(error.code)) {
        throw new ScanRefused(error);
      }
      throw error;
    }
    crashPoint('import:stored');
    const name = job.givenName ?? sanitizeName(remote.name);
    const made = await ctx.db.markReady(
      id,
      'pending',
      {
        name,
        mime,
        size: ingested.size ?? size,
        scannedAt: ingested.scannedAt,
        placeholder: ingested.placeholder,
      },
      fileEvent(ctx, 'file.ready'),
    );
    if (!made) throw new Cancelled();
    ctx.events.kick();
    ctx.metrics?.importEnded('ready');
  } catch (caught) {
    clearInterval(renewal);
    const error = controller.signal.aborted ? controller.signal.reason : caught;
    await ctx.blobs.delete(id).catch((cleanup: unknown) => {
      ctx.log.warn({ err: cleanup, id }, 'could not remove the bytes of a failed import');
    });
    ctx.metrics?.importEnded(error instanceof Cancelled ? 'cancelled' : 'failed');
    if (error instanceof Cancelled) return;
    const failure = asFailure(error);
    if (!(error instanceof ImportFailure)) {
      ctx.log.warn({ err: error, id }, 'an import failed on this side');
    }
    state.error = {
      code: failure.code,
      message: failure.message,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.limit === undefined ? {} : { limit: failure.limit }),
    };
    const signature = error instanceof ScanRefused ? error.signature : null;
    await recordFailure(ctx, id, state, signature).catch((error: unknown) => {
      // The database is what failed: the lease runs out, and a sweep fails it then.
      ctx.log.warn({ err: error, id }, 'could not record a failed import');
    });
  } finally {
    clearInterval(renewal);
    clearTimeout(deadline);
  }
}

/**
 * Removes a pending import that failed, with its `file.import_failed` event; one the
 * scanner found infected (`signature`) with `file.infected` instead, as any infected file.
 */
export async function recordFailure(
  ctx: IngestContext,
  id: string,
  state: ImportState,
  signature: string | null = null,
): Promise<boolean> {
  const error = state.error as ImportErrorState;
  const event =
    error.code === 'infected' && signature !== null
      ? infectedEvent(ctx, signature)
      : importFailedEvent(ctx, error);
  const failed = await ctx.db.failImport(id, ctx.now(), state, event);
  if (!failed) return false;
  // Its bytes went already (or never came); the sweeper has nothing left to purge.
  await ctx.db.markPurged(id);
  ctx.events.kick();
  return true;
}

/**
 * `file.import_failed`: `{ id, reason }` as decisions.md has it, `reason` being the
 * `importError` code, with the rest of the record (status `failed`, `importError`) beside.
 */
function importFailedEvent(ctx: IngestContext, error: ImportErrorState): EventDraft {
  return {
    id: newId('evt_'),
    type: 'file.import_failed',
    at: ctx.now(),
    data: (row) => ({ ...toFileRecord(ctx, row), reason: error.code }),
  };
}

/** The failure as `importError` words it; a fault on this side is `import_failed`. */
function asFailure(error: unknown): ImportFailure {
  if (error instanceof ImportFailure) return error;
  if (error instanceof ServiceError && error.code === 'unavailable') {
    return new ImportFailure(
      'import_failed',
      'The malware scanner could not be reached, so the file was not kept; import it again later.',
    );
  }
  if (error instanceof ServiceError && error.code === 'metadata_unreadable') {
    return new ImportFailure('metadata_unreadable', error.message);
  }
  if (error instanceof ServiceError && error.code === 'insufficient_storage') {
    return new ImportFailure(
      'import_failed',
      'There was no room to store the file; try again later.',
    );
  }
  return new ImportFailure('import_failed', 'The file could not be stored; try again later.');
}

/** The remote `Content-Type` as a declared type (the bytes decide); unusable: none. */
function remoteType(header: string | null): string {
  if (!header) return 'application/octet-stream';
  try {
    return normalizeMediaType(header, 'Content-Type');
  } catch {
    return 'application/octet-stream';
  }
}

/**
 * Fails imports whose lease ran out before `before` (their instance died mid-fetch): their
 * partial bytes go, the row leaves with `import_failed`. At start on a data directory this
 * process owns, every pending import is such a one.
 */
export async function failAbandonedImports(ctx: IngestContext, before: number): Promise<number> {
  let failed = 0;
  for (;;) {
    const rows = await ctx.db.listAbandonedImports(before, 100);
    let progressed = 0;
    for (const row of rows) {
      try {
        await ctx.blobs.delete(row.id);
        const state: ImportState = {
          receivedBytes: row.importState?.receivedBytes ?? 0,
          totalBytes: row.importState?.totalBytes ?? null,
          error: {
            code: 'import_failed',
            message:
              'The import was interrupted (the service instance fetching it stopped); start it again.',
          },
        };
        if (await recordFailure(ctx, row.id, state)) failed++;
        progressed++;
      } catch (error) {
        ctx.log.warn({ err: error, id: row.id }, 'could not fail an abandoned import');
      }
    }
    if (rows.length < 100 || progressed === 0) break;
  }
  return failed;
}
