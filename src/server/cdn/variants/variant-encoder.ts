import { availableParallelism } from 'node:os';
import PQueue from 'p-queue';
import type { Sharp, SharpInput, SharpOptions } from 'sharp';
import { ServiceError } from '../../http/errors.js';
import type { VariantSpec } from './variant-key.js';

/**
 * Past this many pixels an image is not transformed (decisions.md: 100 megapixels), whether
 * it has them or only claims to (a decompression bomb): decoding is refused before it starts.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

export interface EncoderStats {
  /** Images decoded and encoded since start: the count the "made once" tests read. */
  encodes: number;
  /** Decodes under way now, and the most ever under way at once. */
  running: number;
  peakRunning: number;
  /** Jobs waiting for a turn. */
  queued: number;
}

/** What an image's header says (sharp reads the header only: no pixel is decoded). */
export interface ImageHeader {
  width: number;
  height: number;
}

/**
 * Makes variants with sharp (libvips), at most `concurrency` images at once: a decode of a
 * large image holds tens of megabytes and a core, so a burst of distinct variants waits in a
 * queue instead of running the process out of memory or taking every core from the plain
 * CDN path. The default is the machine's parallelism (`os.availableParallelism()`), as
 * libvips itself sizes its pool.
 */
export class VariantEncoder {
  readonly concurrency: number;
  readonly #queue: PQueue;
  #encodes = 0;
  #peakRunning = 0;

  constructor(concurrency: number = availableParallelism()) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new TypeError('VariantEncoder: `concurrency` must be a positive integer');
    }
    this.concurrency = concurrency;
    this.#queue = new PQueue({ concurrency });
  }

  get stats(): EncoderStats {
    return {
      encodes: this.#encodes,
      running: this.#queue.pending,
      peakRunning: this.#peakRunning,
      queued: this.#queue.size,
    };
  }

  /**
   * Checks an image by its header alone (`head`: its first bytes, or all of them when
   * `whole`): an image over `MAX_INPUT_PIXELS` is refused here, in milliseconds, without a
   * turn in the queue. A header that cannot be read from the whole file is not an image;
   * from a part, it is left to the decode to judge. Returns the header when it was read.
   */
  async inspect(head: Buffer, whole: boolean): Promise<ImageHeader | null> {
    let width: number | undefined;
    let height: number | undefined;
    try {
      const sharp = await loadSharp();
      ({ width, height } = await sharp(head, { limitInputPixels: false }).metadata());
    } catch {
      if (whole) throw notAnImage();
      return null;
    }
    if (width === undefined || height === undefined) return null;
    if (width * height > MAX_INPUT_PIXELS) {
      throw new ServiceError(
        'invalid_request',
        `The image is ${width} x ${height} pixels: images over 100 megapixels are not transformed.`,
      );
    }
    return { width, height };
  }

  /**
   * Makes the variant `spec` of the image `read` gives, in its turn (the original is read
   * only then, so waiting jobs hold no image in memory). Null when `read` finds none.
   * Orientation is applied, metadata dropped (sharp keeps none unless told), and the image
   * is never enlarged. An image that does not decode is `400 invalid_request`.
   */
  encode(read: () => Promise<Buffer | null>, spec: VariantSpec): Promise<Buffer | null> {
    return this.#queue.add(async () => {
      this.#peakRunning = Math.max(this.#peakRunning, this.#queue.pending);
      const source = await read();
      if (source === null) return null;
      this.#encodes++;
      try {
        return await transform(source, spec);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        throw notAnImage(error);
      }
    }) as Promise<Buffer | null>;
  }
}

type SharpFactory = (input?: SharpInput, options?: SharpOptions) => Sharp;
let sharpLoaded: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded on the first variant: its native library takes about 100 ms to load, which
 * a service that never serves a variant should not pay at start.
 */
function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    // Every variant is stored once made, so libvips' cache of recent operations would only
    // hold memory (up to 50 MB by default) for work that is never repeated.
    sharp.cache(false);
    return sharp;
  });
  return sharpLoaded;
}

async function transform(source: Buffer, spec: VariantSpec): Promise<Buffer> {
  const sharp = await loadSharp();
  // `failOn: 'warning'` (sharp's default, spelled out): a truncated or damaged image fails
  // instead of being served half grey. Only the first frame of an animation is read.
  let image = sharp(source, {
    limitInputPixels: MAX_INPUT_PIXELS,
    failOn: 'warning',
    animated: false,
  }).autoOrient();
  if (spec.width !== null || spec.height !== null) {
    image = image.resize({
      width: spec.width ?? undefined,
      height: spec.height ?? undefined,
      fit: spec.fit,
      withoutEnlargement: true,
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
      image = image.avif({ quality });
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
  return image.toBuffer();
}

function notAnImage(cause?: unknown): ServiceError {
  const error = new ServiceError(
    'invalid_request',
    'The file is not an image the CDN can transform (damaged, truncated or of another kind).',
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}
