import { create as contentDisposition } from 'content-disposition';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../http/errors.js';
import type { Servable } from '../servable.js';
import type { ServedFile } from '../serving-cache.js';
import {
  contentTypeOf,
  sourceFormat,
  variantFileName,
  variantHeader,
  variantSpec,
} from './variant-key.js';
import { parseVariantParams } from './variant-params.js';

/**
 * The CDN's hook for image variants: what to answer a request for `file` whose query asks
 * for a variant (`?w=…&format=…`), found stored or made now (`ImageVariants`). Null when
 * the query asks for none: the file itself is served. Throws `400 invalid_request` for
 * parameters out of range or on a file that is not an image, and `404` when the file went
 * away while its variant was made.
 */
export async function servableVariant(
  ctx: ServiceContext,
  url: string,
  accept: string | undefined,
  file: ServedFile,
): Promise<Servable | null> {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return null;
  const parsed = parseVariantParams(new URLSearchParams(url.slice(queryAt + 1)));
  if (parsed.kind === 'original') return null;
  if (parsed.kind === 'invalid') throw new ServiceError('invalid_request', parsed.message);
  const { row } = file;
  const source = sourceFormat(row.mime);
  if (source === null) {
    throw new ServiceError(
      'invalid_request',
      `Image parameters apply to images only (JPEG, PNG, WebP, AVIF, GIF, TIFF); this file is ${row.mime}.`,
    );
  }
  const spec = variantSpec(parsed.params, source, accept);
  const variant = await ctx.variants.find(row, spec);
  if (!variant) throw new ServiceError('not_found', 'No file at this address.');
  const headers: Record<string, string> = {
    ...file.headers,
    'content-type': contentTypeOf(spec.format),
    etag: `"${row.id}-${variant.name}"`,
    'content-disposition': contentDisposition(variantFileName(row.name, spec.format), {
      type: 'inline',
    }),
    'x-variant': variantHeader(spec),
    'access-control-expose-headers': 'X-Variant',
  };
  if (spec.negotiated) headers.vary = 'Accept';
  return {
    size: variant.size,
    headers,
    bytes: null,
    open: (range) => ctx.blobs.getDerived(row.id, variant.name, range),
  };
}
