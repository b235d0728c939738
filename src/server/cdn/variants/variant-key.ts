import { mediaEssence } from '../../http/media-type.js';
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

/** One variant of one image, fully decided: what is made, stored and served. */
export interface VariantSpec {
  width: number | null;
  height: number | null;
  fit: Fit;
  format: OutputFormat;
  /** null for formats without a quality setting. */
  quality: number | null;
  /** Whether the answer depends on `Accept` (`format=auto`): it then carries `Vary: Accept`. */
  negotiated: boolean;
}

export function variantSpec(
  params: VariantParams,
  source: OutputFormat,
  accept: string | undefined,
): VariantSpec {
  const format = outputFormat(params.format, source, accept);
  return {
    width: params.width,
    height: params.height,
    fit: params.fit,
    format,
    quality: LOSSY.has(format) ? params.quality : null,
    negotiated: params.format === 'auto',
  };
}

/**
 * The derived object's name (`DERIVED_NAME_PATTERN`): every setting that changes the
 * bytes, so two requests that would make the same bytes name the same object.
 */
export function variantName(spec: VariantSpec): string {
  return (
    [`w${spec.width ?? 0}`, `h${spec.height ?? 0}`, spec.fit, `q${spec.quality ?? 0}`].join('_') +
    `.${EXTENSION[spec.format]}`
  );
}

/**
 * The `X-Variant` header: which variant this is, after rounding (`w=640,fit=inside,
 * format=webp,q=75`); an unconstrained side and an unused quality are left out.
 */
export function variantHeader(spec: VariantSpec): string {
  return [
    spec.width === null ? null : `w=${spec.width}`,
    spec.height === null ? null : `h=${spec.height}`,
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
