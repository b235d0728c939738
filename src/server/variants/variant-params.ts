/**
 * The image parameters of a CDN URL (decisions.md, "Image variants on the CDN"), read and
 * made canonical: sizes rounded up to the ladder, quality to a multiple of 5, so that any
 * query names one of a bounded set of variants per image.
 */

/** How the image fits the box `w` x `h` (sharp's `fit`, which these names are). */
export const FITS = ['cover', 'contain', 'inside', 'fill'] as const;
export type Fit = (typeof FITS)[number];

/** What may be asked for; `auto` is decided by the request's `Accept`. */
export const FORMATS = ['auto', 'webp', 'avif', 'jpeg', 'png'] as const;
export type AskedFormat = (typeof FORMATS)[number];

/**
 * The sizes a variant may have: a requested width or height is rounded up to the next
 * one, so parameters cannot be used to make a new variant for every pixel.
 */
export const SIZE_LADDER = [
  16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840, 4096,
] as const;

export const MAX_SIZE = 4096;
export const DEFAULT_QUALITY = 75;
export const DEFAULT_FIT: Fit = 'inside';

/** The query names that ask for a variant. Any other name is not ours and is left alone. */
const VARIANT_NAMES = ['w', 'h', 'fit', 'format', 'q'] as const;

export interface VariantParams {
  /** On the ladder; null: not constrained. */
  width: number | null;
  height: number | null;
  fit: Fit;
  /** null: the original's format. */
  format: AskedFormat | null;
  /** 5 to 100, a multiple of 5. */
  quality: number;
}

export type ParsedVariant =
  | { kind: 'original' }
  | { kind: 'variant'; params: VariantParams }
  | { kind: 'invalid'; message: string };

/** What a query may be given as: the URL's own, or the framework's parsed object. */
export type QueryInput = URLSearchParams | Readonly<Record<string, unknown>>;

/** The smallest step of the ladder at or above `size` (1 to 4096). */
export function ladderStep(size: number): number {
  for (const step of SIZE_LADDER) if (step >= size) return step;
  return MAX_SIZE;
}

/** `q` rounded up to a multiple of 5 (1 -> 5, 71 -> 75, 100 -> 100). */
export function roundQuality(quality: number): number {
  return Math.ceil(quality / 5) * 5;
}

/**
 * Reads the image parameters of a query. A pure function of the query: no parameter of
 * ours: the original; any of ours out of range, repeated or not a plain decimal: invalid,
 * with the message the `400 invalid_request` carries. Other names (a cache buster, a
 * signed link's `exp` and `sig`, checked elsewhere) are ignored.
 */
export function parseVariantParams(query: QueryInput): ParsedVariant {
  const values = new Map<string, string>();
  for (const name of VARIANT_NAMES) {
    const all = valuesOf(query, name);
    if (all.length > 1) return invalid(`The image parameter \`${name}\` is given more than once.`);
    if (all.length === 1) values.set(name, all[0] as string);
  }
  if (values.size === 0) return { kind: 'original' };

  const size = (name: 'w' | 'h'): number | null | string => {
    const raw = values.get(name);
    if (raw === undefined) return null;
    const value = decimal(raw);
    if (value === null || value < 1 || value > MAX_SIZE) {
      return `\`${name}\` must be a whole number of pixels from 1 to ${MAX_SIZE}.`;
    }
    return ladderStep(value);
  };
  const width = size('w');
  if (typeof width === 'string') return invalid(width);
  const height = size('h');
  if (typeof height === 'string') return invalid(height);

  const fit = values.get('fit') ?? DEFAULT_FIT;
  if (!isOneOf(FITS, fit)) return invalid(`\`fit\` must be one of ${FITS.join(', ')}.`);
  const format = values.get('format') ?? null;
  if (format !== null && !isOneOf(FORMATS, format)) {
    return invalid(`\`format\` must be one of ${FORMATS.join(', ')}.`);
  }
  let quality = DEFAULT_QUALITY;
  const rawQuality = values.get('q');
  if (rawQuality !== undefined) {
    const value = decimal(rawQuality);
    if (value === null || value < 1 || value > 100) {
      return invalid('`q` must be a whole number from 1 to 100.');
    }
    quality = roundQuality(value);
  }
  return { kind: 'variant', params: { width, height, fit, format, quality } };
}

function invalid(message: string): ParsedVariant {
  return { kind: 'invalid', message };
}

function valuesOf(query: QueryInput, name: string): string[] {
  if (query instanceof URLSearchParams) return query.getAll(name);
  const value = query[name];
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  return [String(value)];
}

/** Digits only, at most 5 (no sign, no exponent, no spaces: one spelling per number). */
function decimal(raw: string): number | null {
  return /^[0-9]{1,5}$/.test(raw) ? Number(raw) : null;
}

function isOneOf<T extends string>(allowed: readonly T[], value: string): value is T {
  return (allowed as readonly string[]).includes(value);
}
