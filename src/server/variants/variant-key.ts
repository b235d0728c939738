import { mediaEssence } from '../ground/media-type.js';
import type { AskedFormat, Fit, VariantParams } from './variant-params.js';

/** Formats a variant is written in: those one may ask for, and the originals' own. */
export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff';

const FORMAT_OF_TYPE: Readonly<Record<string, OutputFormat>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
};

const TYPE_OF_FORMAT: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  tiff: 'image/tiff',
};

const EXTENSION: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'jpg',
  png: 'png',
  webp: 'webp',
  avif: 'avif',
  gif: 'gif',
  tiff: 'tiff',
};

/** Formats whose encoder takes a quality; for the others `q` changes nothing and is not kept. */
const LOSSY: ReadonlySet<OutputFormat> = new Set(['jpeg', 'webp', 'avif']);

/**
 * The format of a stored file whose type (recognised from its bytes at upload) is an image
 * the CDN transforms; null for anything else (SVG included: it is not decoded here).
 */
export function sourceFormat(mime: string): OutputFormat | null {
  return FORMAT_OF_TYPE[mediaEssence(mime)] ?? null;
}

/** Whether an `Accept` header lists `type` with a quality above 0. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  return accept.split(',').some((entry) => {
    const [range, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (range !== type) return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The format a variant is written in: `auto` gives AVIF when `Accept` lists it, else WebP
 * when it lists that, else the original's format; none asked: the original's format.
 */
export function outputFormat(
  asked: AskedFormat | null,
  source: OutputFormat,
  accept: string | undefined,
): OutputFormat {
  if (asked === null) return source;
  if (asked !== 'auto') return asked;
  if (accepts(accept, 'image/avif')) return 'avif';
  if (accepts(accept, 'image/webp')) return 'webp';
  return source;
}

/**
 * AVIF is made up to this many pixels on its longest side (decisions.md; Cloudflare caps at
 * 1,200): past it an encode costs seconds of CPU whatever the speed setting.
 */
export const MAX_AVIF_SIDE = 2048;

/** An image's size as shown (EXIF orientation applied). */
export interface ImageSize {
  width: number;
  height: number;
}

/** One variant of one image, fully decided: what is made, stored and served. */
export interface VariantSpec {
  /**
   * The size of the output: for `inside`, exactly the image's size once fitted (so every
   * query giving that size names one variant); for `cover`, `contain` and `fill`, the box.
   */
  width: number;
  height: number;
  fit: Fit;
  format: OutputFormat;
  /** null for formats without a quality setting. */
  quality: number | null;
  /** Whether the answer depends on `Accept` (`format=auto`): it then carries `Vary: Accept`. */
  negotiated: boolean;
}

/**
 * What `params` ask of an image of `image`'s size, keyed by what it is rather than by what
 * was asked: a side asked at or above the image's is the image's (a variant never upscales,
 * so 1920, 3840 and 4096 of a 1000 px image are one variant); a fit into a box that has the
 * image's proportions is the same as `inside`; `inside` is named by the size it comes to.
 * A string when the variant may not be made (AVIF past `MAX_AVIF_SIDE`, asked by name).
 */
export function variantSpec(
  params: VariantParams,
  source: OutputFormat,
  accept: string | undefined,
  image: ImageSize,
): VariantSpec | string {
  const { width, height, fit } = canonicalSize(params, image);
  let format = outputFormat(params.format, source, accept);
  if (format === 'avif' && Math.max(width, height) > MAX_AVIF_SIDE) {
    if (params.format !== 'avif' && params.format !== null) {
      // `auto`: the next best a browser that takes AVIF takes.
      format = 'webp';
    } else {
      return `AVIF is made up to ${MAX_AVIF_SIDE} px on its longest side; this variant would be ${width} x ${height}. Ask for a smaller w or h, or another format.`;
    }
  }
  return {
    width,
    height,
    fit,
    format,
    quality: LOSSY.has(format) ? params.quality : null,
    negotiated: params.format === 'auto',
  };
}

/** The output's size and fit, as `variantSpec` keys them. */
function canonicalSize(
  params: VariantParams,
  image: ImageSize,
): Pick<VariantSpec, 'width' | 'height' | 'fit'> {
  const boxWidth = params.width === null ? null : Math.min(params.width, image.width);
  const boxHeight = params.height === null ? null : Math.min(params.height, image.height);
  if (
    boxWidth !== null &&
    boxHeight !== null &&
    params.fit !== 'inside' &&
    // A box of the image's own proportions: cover, contain and fill all just scale.
    boxWidth * image.height !== boxHeight * image.width
  ) {
    return { width: boxWidth, height: boxHeight, fit: params.fit };
  }
  // With one side given, every fit scales by it (sharp fits only into a box of two).
  const scale = Math.min(
    1,
    boxWidth === null ? 1 : boxWidth / image.width,
    boxHeight === null ? 1 : boxHeight / image.height,
  );
  return {
    width: scaled(image.width, scale, boxWidth),
    height: scaled(image.height, scale, boxHeight),
    fit: 'inside',
  };
}

/** A side scaled, as sharp rounds it; exactly the box's side where that side binds. */
function scaled(side: number, scale: number, box: number | null): number {
  if (box !== null && box / side === scale) return box;
  return Math.max(1, Math.round(side * scale));
}

/**
 * The derived object's name (`DERIVED_NAME_PATTERN`): every setting that changes the
 * bytes, so two requests that would make the same bytes name the same object.
 */
export function variantName(spec: VariantSpec): string {
  return (
    [`w${spec.width}`, `h${spec.height}`, spec.fit, `q${spec.quality ?? 0}`].join('_') +
    `.${EXTENSION[spec.format]}`
  );
}

/**
 * The `X-Variant` header: which variant this is, after rounding and keying
 * (`w=640,h=427,fit=inside,format=webp,q=75`); an unused quality is left out.
 */
export function variantHeader(spec: VariantSpec): string {
  return [
    `w=${spec.width}`,
    `h=${spec.height}`,
    `fit=${spec.fit}`,
    `format=${spec.format}`,
    spec.quality === null ? null : `q=${spec.quality}`,
  ]
    .filter((part) => part !== null)
    .join(',');
}

export function contentTypeOf(format: OutputFormat): string {
  return TYPE_OF_FORMAT[format];
}

/** The original's name with the variant's extension (`photo.jpg` as WebP: `photo.webp`). */
export function variantFileName(original: string, format: OutputFormat): string {
  const dot = original.lastIndexOf('.');
  const stem = dot > 0 ? original.slice(0, dot) : original;
  return `${stem}.${EXTENSION[format]}`;
}
