import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EventDraft, FileRow } from '../db/metadata-store.js';
import { purge, removeFile } from '../files/remove.js';
import { fail, ServiceError } from '../ground/errors.js';
import { newId } from '../ground/secrets.js';
import { toFileRecord } from '../rules/records.js';
import { ScannerUnavailableError, type ScanVerdict } from './clamd.js';
import type { IngestContext } from './ingest-context.js';
import { placeholderOf as computePlaceholder, hasPlaceholder } from './placeholder.js';
import { scanTurnOf } from './scan-turn.js';
import { editableExtension } from './strip-location.js';

/** Seconds a client is asked to wait when clamd cannot be reached. */
const SCANNER_RETRY_AFTER_SECONDS = 10;

/** What safe ingest makes of a stored file, for the row's move to `ready`. */
export interface Ingested {
  /** When clamd found it clean; null without a scanner. */
  scannedAt: number | null;
  /** The stored size, when removing metadata changed it. */
  size?: number;
  /** The image's ThumbHash (`placeholder.ts`); null for other files. */
  placeholder: string | null;
}

/**
 * The last step before a file whose bytes are complete becomes `ready` (decisions.md,
 * "Safe ingest"), for the complete paths and the one-request upload alike:
 *
 * 1. With a scanner, the stored object is streamed to clamd (from the disk or the bucket,
 *    never whole in memory), in its turn (`scanTurnOf`: a client address's anonymous
 *    uploads wait behind each other, not behind everyone). Infected: the row leaves `from`
 *    for `deleted` with a `file.infected` event, its bytes are purged, and `422 infected`
 *    is thrown; unscannable (clamd stopped at one of its limits, or gave no verdict within
 *    the scan timeout): the same without the event, `422 unscannable`. An import's row is
 *    left to the importer, which fails it with that reason. No verdict (clamd down, taking
 *    no bytes past its timeout): `503 unavailable`; nothing changes, so a pending upload
 *    can be completed again. A scan that lost a kept connection clamd had just closed
 *    (`staleConnection`: a restart) is run once more, read from the store.
 * 2. A photo (JPEG, PNG, WebP, HEIC, TIFF; `mime` is the type recognised from its bytes)
 *    loses its location, or all its metadata, as `FILEHOST_STRIP_METADATA` says: the
 *    object is copied to a temp file, edited there by ExifTool and stored again whole in
 *    its place (an atomic replace on either store). Pixels are never decoded for this.
 * 3. An image gets its placeholder (`placeholder.ts`), from the bytes as stored: the file
 *    itself on the local disk, else the one copy of the object this step makes for
 *    ExifTool (or for the placeholder alone, when nothing is stripped). It is computed
 *    while the scan and the strip run: the pixels and orientation it reads are the same
 *    before and after the strip, and an atomic replace leaves a reader the file it opened.
 *
 * Both steps only read the object or replace it with an edited copy, so a crash anywhere
 * in between leaves the row as it was (`pending`, or `receiving` and cleaned up at start),
 * and doing them again gives the same result: the scan is repeated and an edited photo has
 * nothing more to remove.
 */
export async function ingestStored(
  ctx: IngestContext,
  row: FileRow,
  from: 'pending' | 'receiving',
  mime: string,
  /** The bytes scanned as they were stored (`ScanWhileStoring`), instead of read back. */
  scanned?: ScanWhileStoring,
): Promise<Ingested> {
  const copy = new ObjectCopy(ctx, row.id, mime);
  // A placeholder of a file on the local disk starts at once, of an object in a bucket once
  // it is copied here.
  const placeholder = placeholderOf(ctx.blobs.localPath?.(row.id) ?? copy, mime);
  try {
    let scannedAt: number | null = null;
    if (ctx.scanner) {
      await scan(ctx, row, from, scanned?.verdict);
      scannedAt = ctx.now();
    }
    const size = await stripStored(ctx, row, from, mime, copy);
    const ingested = { scannedAt, placeholder: await placeholder };
    return size === null ? ingested : { ...ingested, size };
  } finally {
    // The copy outlives neither step, whichever failed; the placeholder only reads it.
    await placeholder;
    await copy.remove();
  }
}

/** The placeholder of an image from its local file, or its copy; null for other files. */
async function placeholderOf(source: string | ObjectCopy, mime: string): Promise<string | null> {
  if (!hasPlaceholder(mime)) return null;
  try {
    const path = typeof source === 'string' ? source : await source.path();
    return path === null ? null : await computePlaceholder(path, mime);
  } catch {
    // The object could not be copied (gone, or the bucket unreachable): the strip, which
    // needs the same copy, reports that; a file is never refused for its placeholder.
    return null;
  }
}

/**
 * One local copy of a stored object (in `TMPDIR`), made the first time a step asks for it
 * and shared by the steps that read a file whole (ExifTool, the image decoder), so an
 * object in a bucket is downloaded once at most.
 */
class ObjectCopy {
  readonly #ctx: IngestContext;
  readonly #key: string;
  readonly #extension: string;
  #dir: Promise<string> | null = null;
  #copied: Promise<string | null> | null = null;

  constructor(ctx: IngestContext, key: string, mime: string) {
    this.#ctx = ctx;
    this.#key = key;
    this.#extension = editableExtension(mime) ?? 'bin';
  }

  /** A directory of its own, for the copy and what is made from it. */
  dir(): Promise<string> {
    this.#dir ??= mkdtemp(join(tmpdir(), 'filehost-ingest-'));
    return this.#dir;
  }

  /** The copy's path; null when the object is gone (the upload was cancelled). */
  path(): Promise<string | null> {
    this.#copied ??= (async () => {
      const source = await this.#ctx.blobs.get(this.#key);
      if (!source) return null;
      const path = join(await this.dir(), `in.${this.#extension}`);
      await pipeline(source, createWriteStream(path));
      return path;
    })();
    return this.#copied;
  }

  async remove(): Promise<void> {
    if (this.#dir === null) return;
    await this.#copied?.catch(() => undefined);
    await rm(await this.#dir, { recursive: true, force: true });
  }
}

async function scan(
  ctx: IngestContext,
  row: FileRow,
  from: 'pending' | 'receiving',
  alreadyUnderWay: Promise<ScanVerdict> | null | undefined,
) {
  const scanner = ctx.scanner;
  if (!scanner) return;
  // Streams of the stored object opened for the scan, released whatever happens.
  const opened: Readable[] = [];
  let verdict: ScanVerdict;
  const fromStore = () =>
    scanner.scan(scanTurnOf(row), async () => {
      const source = await ctx.blobs.get(row.id);
      if (!source) fail('not_found', 'The upload was cancelled.');
      opened.push(source);
      return source;
    });
  try {
    try {
      verdict = await (alreadyUnderWay ?? fromStore());
    } catch (error) {
      // A kept connection that clamd had let go of just as it was taken (the scanner then
      // drops its other idle ones): the same bytes once more, from the store.
      if (!(error instanceof ScannerUnavailableError && error.staleConnection)) throw error;
      verdict = await fromStore();
    }
  } catch (error) {
    if (!(error instanceof ScannerUnavailableError)) throw error;
    ctx.log.warn({ err: error, id: row.id }, 'the malware scanner gave no verdict');
    fail(
      'unavailable',
      from === 'pending'
        ? 'The malware scanner cannot be reached now; the upload stays pending: complete it again later.'
        : 'The malware scanner cannot be reached now; nothing was kept. Upload the file again later.',
      {
        headers: { 'Retry-After': String(SCANNER_RETRY_AFTER_SECONDS) },
        extra: { retryAfter: SCANNER_RETRY_AFTER_SECONDS },
      },
    );
  } finally {
    for (const source of opened) source.destroy();
  }
  if (verdict.outcome === 'clean') return;
  const refusal = refusalOf(verdict);
  if (verdict.outcome === 'infected') {
    ctx.log.warn({ id: row.id, signature: verdict.signature }, 'an infected upload was refused');
  } else {
    ctx.log.warn(
      { id: row.id, reason: verdict.reason },
      'an upload clamd could not finish was refused',
    );
  }
  // An import ends `failed` with the refusal as its `importError`, which its follower
  // reads: the importer records that (and `file.infected`) in place of its other failures.
  if (row.importState !== null) throw refusal;
  // Deleted as an infected file is; only an infected one has `file.infected` (nothing was
  // found in an unscannable one).
  const event = verdict.outcome === 'infected' ? infectedEvent(ctx, verdict.signature) : undefined;
  if (await ctx.db.markInfected(row.id, from, ctx.now(), event)) {
    if (event) ctx.events.kick();
  }
  // A one-request upload's bytes are removed by its handler; a pending one's here, or by
  // the sweeper (the row is deleted and unpurged) if the store cannot now.
  if (from === 'pending') {
    // A one-request upload's refusal is counted by its handler, with its other endings.
    ctx.metrics?.upload('refused');
    await purge(ctx, row).catch((error: unknown) => {
      ctx.log.warn(
        { err: error, id: row.id },
        'the bytes of a refused upload are left to the sweeper',
      );
    });
  }
  throw refusal;
}

/** The answer to a file the scanner refused: `422 infected` or `422 unscannable`. */
function refusalOf(verdict: Exclude<ScanVerdict, { outcome: 'clean' }>): ServiceError {
  if (verdict.outcome === 'infected') {
    const { signature } = verdict;
    return new ServiceError(
      'infected',
      `The malware scanner found ${signature} in the file; nothing was kept.`,
      { extra: { signature } },
    );
  }
  return new ServiceError(
    'unscannable',
    'The malware scanner could not check this file within its limits (an archive that unpacks to too much, or a scan that takes too long); nothing was kept.',
  );
}

/** `file.infected`: the file record as it was refused, and the signature clamd named. */
export function infectedEvent(ctx: IngestContext, signature: string): EventDraft {
  return {
    id: newId('evt_'),
    type: 'file.infected',
    at: ctx.now(),
    data: (row) => ({ ...toFileRecord(ctx, row), signature }),
  };
}

/**
 * Removes metadata from a stored photo as configured; answers the new size when the object
 * was replaced, null when it was left as it is (not a photo, nothing to remove, stripping
 * off). A photo whose location could not be removed (metadata ExifTool cannot rewrite, or
 * a position still found after) is refused, `422 metadata_unreadable`, and nothing of it
 * is kept: a pending upload is taken back here (as a type refused at complete is), a
 * one-request upload by its handler, an import by the importer (which records why).
 */
async function stripStored(
  ctx: IngestContext,
  row: FileRow,
  from: 'pending' | 'receiving',
  mime: string,
  copy: ObjectCopy,
): Promise<number | null> {
  const key = row.id;
  const extension = editableExtension(mime);
  const mode = ctx.config.stripMetadata;
  if (!ctx.stripper || mode === 'none' || extension === undefined) return null;
  // ExifTool reads a copy named by its type (never the stored file, which it might not
  // recognise without one) and writes its edit beside it.
  const input = await copy.path();
  if (input === null) fail('not_found', 'The upload was cancelled.');
  const output = join(await copy.dir(), `out.${extension}`);
  const result = await ctx.stripper.strip(input, output, mode);
  if (result.outcome === 'refused') {
    ctx.log.warn(
      { id: key, reason: result.reason },
      'the location of a photo could not be removed; it is refused',
    );
    if (from === 'pending' && row.importState === null) {
      await removeFile(ctx, row.projectId, key);
    }
    fail(
      'metadata_unreadable',
      'The location could not be removed from this photo (its metadata cannot be rewritten, or a position is still found); nothing was kept.',
    );
  }
  if (result.outcome === 'unchanged') return null;
  const { size } = await ctx.blobs.put(key, createReadStream(output), { contentType: mime });
  return size;
}

/**
 * Bodies up to this size (by their `Content-Length`) are scanned as they are stored. A
 * larger or chunked one is scanned after, read back: a slow client must not hold one of
 * clamd's few threads (`MaxThreads`, 10 by default) for as long as it takes to send.
 */
const SCAN_WHILE_STORING_MAX = 1024 * 1024;

/**
 * The scan of a small one-request upload, fed with its bytes as they are stored (`tee` the
 * source given to the store), so that clamd reads them while the store writes and flushes
 * them: what a scan costs a small file is mostly clamd's fixed time per stream, which then
 * overlaps the write instead of following it. The slower of the two sets the pace; once
 * clamd has answered or failed, the bytes go on to the store alone. Without a scanner, for
 * a large body, or when scans wait for their turn (a place taken now would overtake them),
 * `tee` gives the source back and the file is scanned after.
 */
export class ScanWhileStoring {
  /** clamd's verdict on every byte `tee` passed on; null when nothing was teed. */
  verdict: Promise<ScanVerdict> | null = null;
  readonly #ctx: IngestContext;
  readonly #row: FileRow;
  readonly #declaredSize: number | undefined;

  constructor(ctx: IngestContext, row: FileRow, declaredSize: number | undefined) {
    this.#ctx = ctx;
    this.#row = row;
    this.#declaredSize = declaredSize;
  }

  tee(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    const scanner = this.#ctx.scanner;
    const size = this.#declaredSize;
    if (!scanner || size === undefined || size > SCAN_WHILE_STORING_MAX) return source;
    const feed = new PassThrough({ highWaterMark: 1024 * 1024 });
    // Written to only while clamd reads; its end is the scanner's business.
    feed.on('error', () => undefined);
    // Only when that overtakes no waiting scan: else the file is scanned after, in turn.
    const verdict = scanner.scanIfFree(scanTurnOf(this.#row), feed);
    if (!verdict) {
      feed.destroy();
      return source;
    }
    let settled = false;
    const over = verdict.then(
      () => undefined,
      () => undefined,
    );
    void over.then(() => {
      settled = true;
    });
    this.verdict = verdict;
    // A body that fails mid-way (a limit, a client gone) fails the scan too; that failure
    // is the upload's, reported by the store: this rejection is not the one anyone waits for.
    verdict.catch(() => undefined);
    return (async function* teed() {
      try {
        for await (const chunk of source) {
          if (!settled && !feed.destroyed && !feed.write(chunk)) {
            await Promise.race([once(feed, 'drain'), over]);
          }
          yield chunk;
        }
        feed.end();
      } catch (error) {
        feed.destroy(error as Error);
        throw error;
      }
    })();
  }
}
