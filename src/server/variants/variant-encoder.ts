import PQueue from 'p-queue';
import type { Sharp, SharpInput, SharpOptions } from 'sharp';
import { ServiceError } from '../ground/errors.js';
import type { OutputFormat, VariantSpec } from './variant-key.js';

/**
 * Past this many pixels an image is not transformed (decisions.md: 100 megapixels), whether
 * it has them or only claims to (a decompression bomb): decoding is refused before it starts.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

/**
 * libaom's speed for AVIF, as sharp's `effort` (0 fastest to 9 slowest). Chosen by
 * measurement (`npm run bench:variants-abuse`, test/bench/README.md "#41"): the fastest
 * effort that keeps a large variant of the worst image (pure noise) under 2 s of CPU, with
 * files within 5 per cent of the default's, which costs several times more.
 */
export const AVIF_EFFORT = 2;

/**
 * What making variants may cost a process (decisions.md, "Variants under abuse"), so that
 * no request can hold the service: at most `concurrency` encodes at once; a job waits for
 * its turn at most `queueWaitMs` and runs at most `runMs`, else its request is answered
 * `503 unavailable`; past `maxQueued` waiting jobs a new one is refused at once.
 */
export interface VariantBudget {
  concurrency: number;
  queueWaitMs: number;
  runMs: number;
  maxQueued: number;
}

export const DEFAULT_BUDGET: Readonly<VariantBudget> = {
  concurrency: 2,
  queueWaitMs: 10_000,
  runMs: 30_000,
  // 10 s of waiting at the pace of 2 encodes of a second or two each: more would only time out.
  maxQueued: 32,
};

/** `Retry-After` of a variant refused for lack of time: about one queue wait. */
export const VARIANT_RETRY_AFTER_SECONDS = 10;

export interface EncoderStats {
  /** Images decoded and encoded since start: the count the "made once" tests read. */
  encodes: number;
  /** Decodes under way now, and the most ever under way at once. */
  running: number;
  peakRunning: number;
  /** Jobs waiting for a turn. */
  queued: number;
  /** Requests answered 503: refused with the queue full or after waiting too long. */
  refused: number;
  /** Jobs whose request was answered 503 because they ran past the budget. */
  abandoned: number;
}

/**
 * An original as a file that sharp opens and reads itself (libvips reads it in its own
 * thread, a strip at a time where the format allows: never a buffer of the whole file in
 * this process). `release` once done with it: a temporary copy is removed then.
 */
export interface SourceFile {
  path: string;
  release(): Promise<void>;
}

/** Finds an original's file when its turn comes; null when the file went away. */
export type OpenSource = () => Promise<SourceFile | null>;

/** What an image's header says (sharp reads the header only: no pixel is decoded). */
export interface ImageHeader {
  /** Its size as shown, EXIF orientation applied. */
  width: number;
  height: number;
}

/** The format sharp names a decoder by, for each source format the CDN transforms. */
const SHARP_FORMAT: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'jpeg',
  png: 'png',
  webp: 'webp',
  avif: 'heif',
  gif: 'gif',
  tiff: 'tiff',
};

/**
 * The only decoders libvips may use in this process (every other loader is blocked when
 * sharp is loaded): those of the formats the CDN transforms. SVG above all is never
 * rasterised, whatever a file's first bytes say (a `<!--ftypavif-->` comment makes an SVG
 * look like AVIF to a recogniser).
 */
const ALLOWED_LOADERS = [
  'VipsForeignLoadJpeg',
  'VipsForeignLoadPng',
  'VipsForeignLoadWebp',
  'VipsForeignLoadHeif',
  'VipsForeignLoadNsgif',
  'VipsForeignLoadTiff',
];

/**
 * Makes variants with sharp (libvips) within a budget (`VariantBudget`): a decode of a
 * large image holds tens of megabytes and a core, so a burst of distinct variants waits in
 * a bounded queue instead of running the process out of memory or taking every core from
 * the plain CDN path; libvips runs one thread per encode, so two encodes leave the event
 * loop its share of a two-core machine.
 */
export class VariantEncoder {
  readonly budget: Readonly<VariantBudget>;
  /** Told the time of each encode that made a variant (metrics). */
  onEncoded: ((format: OutputFormat, seconds: number) => void) | null = null;
  readonly #queue: PQueue;
  #encodes = 0;
  #peakRunning = 0;
  #refused = 0;
  #abandoned = 0;

  constructor(budget: Partial<VariantBudget> = {}) {
    const full = { ...DEFAULT_BUDGET, ...budget };
    for (const [name, value] of Object.entries(full)) {
      if (!Number.isInteger(value) || value < 1) {
        throw new TypeError(`VariantEncoder: \`${name}\` must be a positive integer`);
      }
    }
    this.budget = full;
    this.#queue = new PQueue({ concurrency: full.concurrency });
  }

  get concurrency(): number {
    return this.budget.concurrency;
  }

  get stats(): EncoderStats {
    return {
      encodes: this.#encodes,
      running: this.#queue.pending,
      peakRunning: this.#peakRunning,
      queued: this.#queue.size,
      refused: this.#refused,
      abandoned: this.#abandoned,
    };
  }

  /**
   * Checks an image by its header alone (`head`: its first bytes, or all of them when
   * `whole`), read as `source` and nothing else: bytes another decoder would take (an SVG
   * behind an AVIF signature) are refused, and so is an image over `MAX_INPUT_PIXELS`, in
   * milliseconds, without a turn in the queue. A header that cannot be read from the whole
   * file is not an image; from a part, null: `inspectWhole` reads it in a turn.
   */
  async inspect(head: Buffer, whole: boolean, source: OutputFormat): Promise<ImageHeader | null> {
    const sharp = await loadSharp();
    let header: ImageHeader;
    try {
      header = headerOf(await sharp(head, { limitInputPixels: false }).metadata(), source);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (whole) throw notAnImage(error);
      return null;
    }
    return header;
  }

  /**
   * The header of an image whose first bytes did not hold it (a TIFF may keep it at its
   * end), read from the whole file in a turn of the queue, so that such files cannot hold
   * more memory at once than encodes do. Null when `read` finds none.
   */
  inspectWhole(open: OpenSource, source: OutputFormat): Promise<ImageHeader | null> {
    return this.#inTurn(() =>
      withSource(open, async (path) => {
        const sharp = await loadSharp();
        try {
          return headerOf(await sharp(path, { limitInputPixels: false }).metadata(), source);
        } catch (error) {
          if (error instanceof ServiceError) throw error;
          throw notAnImage(error);
        }
      }),
    );
  }

  /**
   * Makes the variant `spec` of the image `open` finds, in its turn (the original is opened
   * only then, so waiting jobs hold nothing). Null when `open` finds none.
   * Orientation is applied, metadata dropped (sharp keeps none unless told). An image that
   * does not decode as `source` is `400 invalid_request`; no turn within the wait, or a job
   * past its run time, `503 unavailable` (and its result, if it comes, is dropped).
   */
  encode(open: OpenSource, spec: VariantSpec, source: OutputFormat): Promise<Buffer | null> {
    return this.#inTurn(() =>
      withSource(open, async (path) => {
        this.#encodes++;
        const startedAt = performance.now();
        try {
          const made = await transform(path, spec, source, this.budget.runMs);
          this.onEncoded?.(spec.format, (performance.now() - startedAt) / 1000);
          return made;
        } catch (error) {
          if (error instanceof ServiceError) throw error;
          throw notAnImage(error);
        }
      }),
    );
  }

  /**
   * Runs `task` in a turn of the queue, answering within the budget whatever the task does.
   * The task keeps its turn until it really ends, even once its caller was answered: the
   * CPU it may still burn (libheif's AVIF encoder does not stop on sharp's timeout) counts
   * against the concurrency, so abandoned jobs cannot pile up.
   */
  #inTurn<T>(task: () => Promise<T>): Promise<T> {
    if (this.#queue.size >= this.budget.maxQueued) {
      this.#refused++;
      return Promise.reject(busy('Too many image variants are waiting to be made'));
    }
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        settle();
      };
      const waiting = new AbortController();
      const waitTimer = setTimeout(() => {
        this.#refused++;
        waiting.abort(busy('No turn to make this image variant came in time'));
      }, this.budget.queueWaitMs);
      this.#queue
        .add(
          async () => {
            clearTimeout(waitTimer);
            this.#peakRunning = Math.max(this.#peakRunning, this.#queue.pending);
            const runTimer = setTimeout(() => {
              this.#abandoned++;
              answer(() => reject(busy('Making this image variant took too long')));
            }, this.budget.runMs);
            try {
              const value = await task();
              answer(() => resolve(value));
            } catch (error) {
              answer(() => reject(error));
            } finally {
              clearTimeout(runTimer);
            }
          },
          { signal: waiting.signal },
        )
        .catch((error: unknown) => answer(() => reject(error)));
    });
  }
}

export type SharpFactory = ((input?: SharpInput, options?: SharpOptions) => Sharp) & {
  cache(options: boolean): unknown;
  concurrency(threads: number): number;
  block(options: { operation: string[] }): void;
  unblock(options: { operation: string[] }): void;
};
let sharpLoaded: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded on the first variant or placeholder (`ingest/placeholder.ts`): its native
 * library takes about 100 ms to load, which a service that never sees an image should not
 * pay at start. Its settings are the process's (libvips has one of each), set once here.
 */
function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    // Every variant is stored once made, so libvips' cache of recent operations would only
    // hold memory (up to 50 MB by default) for work that is never repeated.
    sharp.cache(false);
    // One libvips thread per image: two encodes then take at most the two cores of a small
    // machine, never the event loop's share as well (sharp's default where it is built
    // with jemalloc is a thread per core, per image).
    sharp.concurrency(1);
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({ operation: ALLOWED_LOADERS });
    return sharp;
  });
  return sharpLoaded;
}

export interface SharpMetadata {
  format?: string;
  compression?: string;
  width?: number;
  height?: number;
  autoOrient?: { width: number; height: number };
}

/** The shown size of an image whose header says `meta`, checked against its `source` type. */
export function headerOf(meta: SharpMetadata, source: OutputFormat): ImageHeader {
  const decodesAs = meta.format === 'heif' && meta.compression !== 'av1' ? 'hevc' : meta.format;
  if (decodesAs !== SHARP_FORMAT[source]) {
    throw new ServiceError(
      'invalid_request',
      `The file was recognised as ${source.toUpperCase()} but does not decode as one.`,
    );
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (width === undefined || height === undefined) throw notAnImage();
  if (width * height > MAX_INPUT_PIXELS) {
    throw new ServiceError(
      'invalid_request',
      `The image is ${width} x ${height} pixels: images over 100 megapixels are not transformed.`,
    );
  }
  return { width, height };
}

/** Runs `use` on the file `open` finds (null when none), releasing it however `use` ends. */
async function withSource<T>(
  open: OpenSource,
  use: (path: string) => Promise<T>,
): Promise<T | null> {
  const file = await open();
  if (file === null) return null;
  try {
    return await use(file.path);
  } finally {
    await file.release();
  }
}

/**
 * A stored image opened for decoding, as every reader of an uploaded image opens one (a
 * variant, a placeholder). `failOn: 'warning'` (sharp's default, spelled out): a truncated
 * or damaged image fails instead of being drawn half grey. Only the first frame of an
 * animation is read; rows are read in order (no copy of the whole decoded image where the
 * pipeline allows). sharp opens the file itself, its limits (pixels, above) checked before a
 * pixel is decoded.
 */
export async function openImage(path: string): Promise<Sharp> {
  const sharp = await loadSharp();
  return sharp(path, {
    limitInputPixels: MAX_INPUT_PIXELS,
    failOn: 'warning',
    animated: false,
    sequentialRead: true,
  });
}

async function transform(
  source: string,
  spec: VariantSpec,
  sourceFormat: OutputFormat,
  runMs: number,
): Promise<Buffer> {
  let image = await openImage(source);
  // The decoder is the recognised type's: the header is read again from this very file
  // (the head checked earlier may have been a part of it).
  const shown = headerOf(await image.metadata(), sourceFormat);
  image = image.autoOrient();
  const resized = spec.width !== shown.width || spec.height !== shown.height;
  if (spec.width !== null && spec.height !== null && resized) {
    // An `inside` variant is keyed by its exact size (variant-key.ts), made as that size.
    image = image.resize({
      width: spec.width,
      height: spec.height,
      fit: spec.fit === 'inside' ? 'fill' : spec.fit,
    });
  }
  const quality = spec.quality ?? undefined;
  switch (spec.format) {
    case 'jpeg':
      image = image.jpeg({ quality, mozjpeg: false });
      break;
    case 'webp':
      image = image.webp({ quality });
      break;
    case 'avif':
      image = image.avif({ quality, effort: AVIF_EFFORT });
      break;
    case 'png':
      image = image.png();
      break;
    case 'gif':
      image = image.gif();
      break;
    case 'tiff':
      image = image.tiff();
      break;
  }
  // libvips stops its own work at the deadline (decoding, resizing, JPEG/WebP/PNG); the
  // caller is answered then in any case (`#inTurn`).
  return image.timeout({ seconds: Math.ceil(runMs / 1000) }).toBuffer();
}

function busy(message: string): ServiceError {
  return new ServiceError(
    'unavailable',
    `${message}; try again in ${VARIANT_RETRY_AFTER_SECONDS} seconds.`,
    {
      headers: { 'Retry-After': String(VARIANT_RETRY_AFTER_SECONDS) },
      extra: { retryAfter: VARIANT_RETRY_AFTER_SECONDS },
    },
  );
}

function notAnImage(cause?: unknown): ServiceError {
  const error = new ServiceError(
    'invalid_request',
    'The file is not an image the CDN can transform (damaged, truncated or of another kind).',
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}
