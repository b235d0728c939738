import { buffer } from 'node:stream/consumers';
import { create as contentDisposition } from 'content-disposition';
import { CDN_CACHED_FILE_BYTES, type ServedFile } from '../cache/serving-cache.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../ground/errors.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import type { ByteRange } from '../storage/blob-store.js';
import {
  contentTypeOf,
  sourceFormat,
  variantFileName,
  variantHeader,
  variantSpec,
} from '../variants/variant-key.js';
import { parseVariantParams } from '../variants/variant-params.js';
import { answerHead } from './answer-head.js';
import type { Servable } from './servable.js';

/**
 * The CDN's hook for image variants: what to answer a request for `file` whose query
 * (`query`, read from `url` by the caller) asks for a variant (`?w=…&format=…`), found
 * stored or made now (`ImageVariants`). Null when
 * the query asks for none: the file itself is served. Throws `400 invalid_request` for
 * parameters out of range or on a file that is not an image (or not the image it was
 * recognised as), `404` when the file went away while its variant was made, and `503
 * unavailable` when the encoder's budget ran out (variant-encoder.ts).
 */
export async function servableVariant(
  ctx: ServiceContext,
  request: { url: string; query: URLSearchParams; method: string; accept: string | undefined },
  file: ServedFile,
): Promise<Servable | null> {
  const { url, query, accept } = request;
  if (query.size === 0) return null;
  const parsed = parseVariantParams(query);
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
  const cache = ctx.servingCache;
  const epoch = cache.epoch;
  // A small variant asked for by this very URL before: from memory (the file's row was
  // checked by the caller, as for the file itself).
  const held = cache.get(url);
  if (held?.bytes) {
    held.served?.();
    return fromMemory(held, held.bytes);
  }

  const header = await ctx.variants.header(row, source);
  if (!header) throw new ServiceError('not_found', 'No file at this address.');
  const spec = variantSpec(parsed.params, source, accept, header);
  if (typeof spec === 'string') throw new ServiceError('invalid_request', spec);
  const variant = await ctx.variants.find(row, spec, source);
  if (!variant) throw new ServiceError('not_found', 'No file at this address.');
  // Removed between the lookup and the read (another instance's least recently served):
  // gone with its file, 404; else a moment's 503, and the next request makes it again.
  const open = async (range?: ByteRange) => {
    const stream = await ctx.blobs.getDerived(row.id, variant.name, range);
    if (stream || !(await ctx.variants.lost(row.id, variant.name))) return stream;
    throw new ServiceError('unavailable', 'The image variant is being made again; try again.', {
      headers: { 'Retry-After': '1' },
      extra: { retryAfter: 1 },
    });
  };
  const headers: Record<string, string> = {
    ...file.headers,
    'content-type': contentTypeOf(spec.format),
    etag: `"${row.id}-${variant.name}"`,
    'content-disposition': contentDisposition(variantFileName(row.name, spec.format), {
      type: 'inline',
    }),
    'x-variant': variantHeader(spec),
    'access-control-expose-headers': `X-Variant, ${REQUEST_ID_HEADER}`,
  };
  if (spec.negotiated) headers.vary = 'Accept';
  // Small ones are kept in memory, as small files are, under the URL that asked (the CDN's
  // memory path answers that URL then, checking nothing more). Not when the answer depends
  // on `Accept`, nor for a URL that carries a signature (`exp`, `sig`): one that expires
  // must be checked at every request.
  const signed = query.has('exp') || query.has('sig');
  if (
    !spec.negotiated &&
    !signed &&
    request.method === 'GET' &&
    variant.size <= CDN_CACHED_FILE_BYTES
  ) {
    // Just made: its bytes are at hand; stored before: read once, then held.
    const stream = variant.bytes ? null : await open();
    const bytes = variant.bytes ?? (stream ? await buffer(stream) : null);
    if (bytes?.length === variant.size) {
      const held: ServedFile = {
        row,
        headers,
        bytes,
        wholeHead: answerHead(headers, bytes.length),
        served: () => ctx.variants.served(row.id, variant.name),
      };
      cache.putDerived(row.id, url, held, epoch);
      return fromMemory(held, bytes);
    }
  }
  // Made but not stored (over 4 times its original, or its project's whole budget): its
  // bytes are all there is.
  if (!variant.stored && variant.bytes) {
    return { size: variant.size, headers, bytes: variant.bytes, open: async () => null };
  }
  return {
    size: variant.size,
    headers,
    bytes: null,
    open,
  };
}

function fromMemory(held: ServedFile, bytes: Buffer): Servable {
  return {
    size: bytes.length,
    headers: held.headers,
    bytes,
    open: async () => null,
  };
}
